// What a run saw of one zone's DNSSEC, server by server, read from its query log without asking
// anything again: the DNSKEY set each server gave (and which keys sign it), the DS set each parent
// server gave, and the signature by the zone's keys that expires first. A watch keeps one per run
// to follow key rollovers over time (RFC 6781 §4.1, RFC 7583).
import { Name, RRType, keyTag, recordIs, typeToString, type DnskeyData, type DsData, type ResourceRecord, type RrsigData } from '@app/dns';
import type { Exchange } from '../net/network.ts';
import { readQueryLog } from './query-log.ts';

export interface SnapshotKey {
  /** "algorithm/tag", as the chain names keys. */
  id: string;
  tag: number;
  algorithm: number;
  flags: number;
  ttl: number;
  /** Whether an RRSIG by this key over the DNSKEY RRset came with it. */
  signsKeys: boolean;
}

export interface SnapshotDs {
  /** "algorithm/tag/digest type", as the chain names DS records. */
  id: string;
  tag: number;
  algorithm: number;
  digestType: number;
  digest: string;
  ttl: number;
}

export interface SnapshotSignature {
  /** Seconds since the epoch. */
  expiration: number;
  inception: number;
  owner: string;
  type: string;
  keyTag: number;
  /** The original TTL of the RRset it covers: how long a resolver may keep it. */
  ttl: number;
}

export interface ServerDnssec {
  /** "name/address" as the run named the server. */
  server: string;
  /** Undefined when the server gave no DNSKEY answer. */
  keys?: SnapshotKey[];
  /** The zone's signature that expires first among those this server sent. */
  earliestExpiry?: SnapshotSignature;
  /** Key tags of the signatures by the zone's keys over other RRsets than DNSKEY, with the longest TTL each covers. */
  signingKeys: { tag: number; ttl: number }[];
}

export interface DnssecSnapshot {
  zone: string;
  /** The zone's own servers, by server. */
  servers: ServerDnssec[];
  /** The parent's servers that answered the zone's DS, with the DS set each gave (empty: none). */
  parents: { server: string; ds: SnapshotDs[] }[];
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').toUpperCase();

/** The zone's DNSSEC as `exchanges` show it; a reply that did not decode is left out. */
export function dnssecSnapshot(zoneName: string, exchanges: readonly Exchange[]): DnssecSnapshot {
  const zone = Name.fromString(zoneName).toLowerCase();
  const own = new Map<string, ServerDnssec & { signers: Map<number, number> }>();
  const parents = new Map<string, SnapshotDs[]>();
  const ownEntry = (server: string) => {
    let entry = own.get(server);
    if (entry === undefined) {
      entry = { server, signingKeys: [], signers: new Map() };
      own.set(server, entry);
    }
    return entry;
  };

  for (const reply of readQueryLog(exchanges)) {
    const message = reply.message;
    if (message === undefined) continue;
    const server = `${reply.serverName}/${reply.address}`;
    const records = [...message.answer, ...message.authority];
    const sigs = records.filter((rr): rr is ResourceRecord<RrsigData> => recordIs(rr, RRType.RRSIG));

    if (reply.qtype === RRType.DS && reply.qname.equals(zone)) {
      const ds = message.answer.filter((rr): rr is ResourceRecord<DsData> => recordIs(rr, RRType.DS) && rr.name.equals(zone));
      // A parent server that answers (with the DS or without) says what its DS set is now.
      if (ds.length > 0 || (message.aa && message.rcode === 0)) {
        if (!parents.has(server) || ds.length > 0) parents.set(server, ds.map(dsOf));
      }
    }

    const zoneSigs = sigs.filter((rr) => rr.rdata.signerName.equals(zone));
    if (zoneSigs.length === 0 && !(reply.qtype === RRType.DNSKEY && reply.qname.equals(zone))) continue;
    const keys = message.answer.filter((rr): rr is ResourceRecord<DnskeyData> => recordIs(rr, RRType.DNSKEY) && rr.name.equals(zone));
    if (zoneSigs.length === 0 && keys.length === 0) continue;
    const entry = ownEntry(server);
    // An answer without DO carries no RRSIG: the set is taken from it only while none with DO came.
    if (keys.length > 0 && (reply.dnssec || entry.keys === undefined)) {
      const keySigners = new Set(zoneSigs.filter((rr) => rr.rdata.typeCovered === RRType.DNSKEY).map((rr) => rr.rdata.keyTag));
      entry.keys = keys.map((rr) => keyOf(rr, keySigners));
    }
    for (const sig of zoneSigs) {
      const data = sig.rdata;
      // A cached DNSKEY set is checked against its own keys; any other cached RRset needs its signer in the current set.
      if (data.typeCovered !== RRType.DNSKEY)
        entry.signers.set(data.keyTag, Math.max(entry.signers.get(data.keyTag) ?? 0, data.originalTtl));
      if (entry.earliestExpiry === undefined || data.expiration < entry.earliestExpiry.expiration) {
        entry.earliestExpiry = {
          expiration: data.expiration,
          inception: data.inception,
          owner: sig.name.toLowerCase().toString(),
          type: typeToString(data.typeCovered),
          keyTag: data.keyTag,
          ttl: data.originalTtl,
        };
      }
    }
  }

  return {
    zone: zone.toString(),
    servers: [...own.values()]
      .map(({ signers, ...entry }) => ({
        ...entry,
        signingKeys: [...signers].map(([tag, ttl]) => ({ tag, ttl })).sort((a, b) => a.tag - b.tag),
      }))
      .sort((a, b) => a.server.localeCompare(b.server)),
    parents: [...parents].map(([server, ds]) => ({ server, ds })).sort((a, b) => a.server.localeCompare(b.server)),
  };
}

function keyOf(rr: ResourceRecord<DnskeyData>, signers: Set<number>): SnapshotKey {
  const tag = keyTag(rr.rdata);
  return {
    id: `${rr.rdata.algorithm}/${tag}`,
    tag,
    algorithm: rr.rdata.algorithm,
    flags: rr.rdata.flags,
    ttl: rr.ttl,
    signsKeys: signers.has(tag),
  };
}

function dsOf(rr: ResourceRecord<DsData>): SnapshotDs {
  const { keyTag: tag, algorithm, digestType, digest } = rr.rdata;
  return { id: `${algorithm}/${tag}/${digestType}`, tag, algorithm, digestType, digest: hex(digest), ttl: rr.ttl };
}
