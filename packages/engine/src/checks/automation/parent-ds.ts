// What a parent following RFC 7344 §4.1 and RFC 8078 would do with the child's CDS/CDNSKEY now: the
// DS RRset it would publish, "remove all", or why it must leave the DS RRset as it is. Pure: it reads
// the answers each server gave and the DS RRset the parent serves.
import type { Name } from '@app/dns';
import { checkDs, dsDigest, DigestType, keyTag, verifyWithKeys, type DsData, type RecordInput } from '@app/dns';
import type { Dnskey, Rrsig } from '../dnssec/records.ts';
import { dsKey, hex } from '../dnssec/records.ts';
import type { ChildKeySets } from '../dnssec/servers.ts';

export interface DsRecord {
  ttl: number;
  rdata: DsData;
}

export type ParentDsAction = 'publish' | 'remove' | 'none';

export interface ParentDsVerdict {
  action: ParentDsAction;
  /** The DS RRset to publish (empty unless `publish`), in canonical order. */
  ds: DsRecord[];
  /** The finding that says why. */
  tag: string;
  args: Record<string, string | number>;
}

/** The DS RRset of the RFC 8078 §4 delete request once the CDS (or CDNSKEY) is of algorithm 0. */
const isDelete = (algorithm: number): boolean => algorithm === 0;

/** A DS record as a zone file line, the way a registrar's form takes it: owner TTL IN DS tag algorithm type HEX. */
export function dsLine(owner: Name, ds: DsRecord): string {
  const { keyTag: tag, algorithm, digestType, digest } = ds.rdata;
  return `${owner.toLowerCase().toString()} ${ds.ttl} IN DS ${tag} ${algorithm} ${digestType} ${hex(digest).toUpperCase()}`;
}

/** RFC 4034 §6.3 order: rdata compared as bytes (tag, algorithm, type, digest). */
function canonical(records: readonly DsRecord[]): DsRecord[] {
  const bytes = (d: DsData): Buffer =>
    Buffer.concat([Buffer.from([d.keyTag >> 8, d.keyTag & 0xff, d.algorithm, d.digestType]), Buffer.from(d.digest)]);
  const unique = new Map(records.map((r) => [dsKey(r.rdata), r]));
  return [...unique.values()].sort((a, b) => Buffer.compare(bytes(a.rdata), bytes(b.rdata)));
}

/** The records a server answered for CDS and CDNSKEY, as one text, to see whether servers agree. */
export function childSignalText(sets: ChildKeySets): string {
  const cds = (sets.cds?.records ?? []).map((r) => `CDS ${dsKey(r.rdata)}`);
  const cdnskey = (sets.cdnskey?.records ?? []).map(
    (r) => `CDNSKEY ${r.rdata.flags}/${r.rdata.protocol}/${r.rdata.algorithm}/${hex(r.rdata.publicKey)}`,
  );
  return [...cds, ...cdnskey].sort().join('\n');
}

/** Whether one of `sigs` over `rrset` verifies with a key of `keys`, made by the zone itself. */
function signedBy(zone: Name, rrset: readonly RecordInput[], sigs: readonly Rrsig[], keys: readonly Dnskey[], time: number): boolean {
  return sigs.some((sig) => sig.rdata.signerName.equals(zone) && verifyWithKeys(rrset, sig, keys, time).ok);
}

/** The DS records made from CDNSKEY records: SHA-256, as RFC 8078 §3 suggests and dnssec-cds does by default. */
function dsFromCdnskey(zone: Name, keys: readonly Dnskey[], ttl: number): DsRecord[] {
  return keys.map((key) => ({
    ttl,
    rdata: {
      keyTag: keyTag(key.rdata),
      algorithm: key.rdata.algorithm,
      digestType: DigestType.SHA256,
      digest: dsDigest(zone, key.rdata, DigestType.SHA256)!,
    },
  }));
}

/** The DNSKEYs a DS names by tag, algorithm and a digest that matches (or one we cannot compute). */
function keysNamedBy(zone: Name, ds: readonly DsData[], dnskeys: readonly Dnskey[], dnskeySigs: readonly Rrsig[], time: number): Dnskey[] {
  return dnskeys.filter((key) =>
    ds.some((d) => {
      if (d.keyTag !== keyTag(key.rdata) || d.algorithm !== key.rdata.algorithm) return false;
      const check = checkDs(zone, d, [key], dnskeySigs, time);
      return check.digest === 'match' || check.digest === 'unsupported';
    }),
  );
}

/** Every key (tag and algorithm) named by the DS RRset comes with the same digest types (a partial set breaks some validators). */
function evenDigests(ds: readonly DsRecord[]): boolean {
  const perKey = new Map<string, Set<number>>();
  for (const { rdata } of ds) {
    const key = `${rdata.keyTag}/${rdata.algorithm}`;
    perKey.set(key, (perKey.get(key) ?? new Set()).add(rdata.digestType));
  }
  const sets = [...perKey.values()].map((s) => [...s].sort().join(','));
  return new Set(sets).size <= 1;
}

/** The DS RRset the child's CDS asks for (CDNSKEY turned into SHA-256 DS when there is no CDS), in canonical order. */
export function proposedDs(zone: Name, sets: ChildKeySets, ttl: number): DsRecord[] {
  const cds = sets.cds?.records ?? [];
  return canonical(
    cds.length > 0 ? cds.map((r) => ({ ttl, rdata: { ...r.rdata } })) : dsFromCdnskey(zone, sets.cdnskey?.records ?? [], ttl),
  );
}

export interface ParentDsInput {
  zone: Name;
  /** The DS RRset the parent serves now. */
  current: readonly DsRecord[];
  /** Each child server's answers (by "name/address"); undefined for a server that gave no usable answer. */
  servers: ReadonlyMap<string, ChildKeySets | undefined>;
  /** Seconds since the epoch. */
  time: number;
}

/** What the parent should do, or why nothing. */
export function parentDsVerdict(input: ParentDsInput): ParentDsVerdict {
  const { zone, current, time } = input;
  const none = (tag: string, args: Record<string, string | number> = {}): ParentDsVerdict => ({ action: 'none', ds: [], tag, args });
  const silent = [...input.servers].filter(([, sets]) => sets?.cds === undefined || sets.cdnskey === undefined).map(([ns]) => ns);
  if (silent.length > 0) return none('PARENT_DS_NO_ANSWER', { ns_list: silent.sort().join(';') });
  const answering = [...input.servers.values()].filter((s): s is ChildKeySets => s !== undefined);
  if (answering.length === 0) return none('PARENT_DS_NO_ANSWER', { ns_list: '' });
  const texts = new Map<string, string[]>();
  for (const [ns, sets] of input.servers) texts.set(childSignalText(sets!), [...(texts.get(childSignalText(sets!)) ?? []), ns]);
  if (texts.size > 1) {
    // The servers that differ from the largest group, so the operator knows where to look.
    const groups = [...texts.values()].sort((a, b) => b.length - a.length);
    return none('PARENT_DS_INCONSISTENT', { ns_list: groups.slice(1).flat().sort().join(';') });
  }
  const sets = answering[0];
  const cds = sets.cds!.records;
  const cdnskey = sets.cdnskey!.records;
  if (cds.length === 0 && cdnskey.length === 0) return none('PARENT_DS_NO_CDS');
  const deletes = [...cds.map((r) => r.rdata.algorithm), ...cdnskey.map((r) => r.rdata.algorithm)].filter(isDelete).length;
  if (deletes > 0 && deletes < cds.length + cdnskey.length) return none('PARENT_DS_MIXED_DELETE');
  if (current.length === 0) return none(deletes > 0 ? 'PARENT_DS_ALREADY_INSECURE' : 'PARENT_DS_UNSIGNED_DELEGATION');

  // RFC 7344 §4.1: only keys the current DS RRset names may vouch for the DNSKEY, CDS and CDNSKEY RRsets.
  const dnskeys = sets.dnskey?.records ?? [];
  const dnskeySigs = sets.dnskey?.rrsigs ?? [];
  const trusted = keysNamedBy(
    zone,
    current.map((d) => d.rdata),
    dnskeys,
    dnskeySigs,
    time,
  );
  if (!signedBy(zone, dnskeys, dnskeySigs, trusted, time)) return none('PARENT_DS_DNSKEY_NOT_TRUSTED');
  for (const [type, own] of [
    ['CDNSKEY', sets.cdnskey!],
    ['CDS', sets.cds!],
  ] as const) {
    if (own.records.length > 0 && !signedBy(zone, own.records, own.rrsigs, trusted, time))
      return none('PARENT_DS_NOT_SIGNED_BY_DS_KEY', { rrtype: type });
  }
  if (deletes > 0) return { action: 'remove', ds: [], tag: 'PARENT_DS_REMOVE', args: {} };

  const wanted = proposedDs(zone, sets, current[0].ttl);
  if (!evenDigests(wanted)) return none('PARENT_DS_UNEVEN_DIGESTS');
  // The new DS RRset must not break the chain: each algorithm it names needs a key it names signing the DNSKEY RRset.
  const named = keysNamedBy(
    zone,
    wanted.map((d) => d.rdata),
    dnskeys,
    dnskeySigs,
    time,
  );
  for (const algorithm of new Set(wanted.map((d) => d.rdata.algorithm))) {
    const keys = named.filter((key) => key.rdata.algorithm === algorithm);
    if (!signedBy(zone, dnskeys, dnskeySigs, keys, time)) return none('PARENT_DS_BREAKS_CHAIN', { algorithm });
  }
  const same = (a: readonly DsRecord[], b: readonly DsRecord[]): boolean =>
    a.length === b.length && a.every((d, i) => dsKey(d.rdata) === dsKey(b[i].rdata));
  if (same(wanted, canonical(current))) return none('PARENT_DS_UNCHANGED', { count: wanted.length });
  return { action: 'publish', ds: wanted, tag: 'PARENT_DS_PUBLISH', args: { count: wanted.length, ds_list: '' } };
}
