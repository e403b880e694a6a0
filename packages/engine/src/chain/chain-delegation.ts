// A zone's delegation as DNSViz judges it: the DS its parent's servers gave, each matched with the zone's
// DNSKEYs, and the status (SECURE, INSECURE, BOGUS, INCOMPLETE, LAME) with the errors behind it.
import type { Name } from '@app/dns';
import { Rcode, RRType, keyTag, type DnskeyData, type DsData, type ResourceRecord } from '@app/dns';
import type { ChainDs, ChainQuery, ChainZone, DelegationStatus } from './chain-analysis.ts';
import { negativeProof, queryFrom, type RrsetJudge } from './chain-queries.ts';
import { dotted, keyId, rdataKey, records, rrsigsOver, sorted, type ChainReading } from './chain-reading.ts';
import { dsNamesKey, judgeDs, supportedAlgorithms, supportedDigestTypes, type Problem } from './statuses.ts';
import type { AnsweredReply } from './zone-cuts.ts';

interface SeenDs {
  rr: ResourceRecord<DsData>;
  servers: Set<string>;
}

export interface DelegationInput {
  zone: Name;
  parent: Name;
  /** The replies of the zone's own servers about the zone. */
  own: readonly AnsweredReply[];
  judge: RrsetJudge;
  /** The zone's queries, to which the DS question is added. */
  queries: ChainQuery[];
  notes: string[];
}

export function judgeDelegation(
  reading: ChainReading,
  { zone, parent, own, judge, queries, notes }: DelegationInput,
): NonNullable<ChainZone['delegation']> {
  const { answered, inZone } = reading;
  const dsReplies = answered.filter((r) => r.qtype === RRType.DS && r.qname.equals(zone) && inZone(parent, r) && !inZone(zone, r));
  if (dsReplies.length === 0)
    notes.push(
      `The run did not ask ${dotted(parent)}'s servers for the DS of ${dotted(zone)}; the delegation is judged as if there were none.`,
    );
  const dsSeen = new Map<string, SeenDs>();
  for (const r of dsReplies) {
    for (const rr of records<DsData>(r.message, 'answer', zone, RRType.DS)) {
      const k = rdataKey(RRType.DS, rr.rdata);
      const known = dsSeen.get(k) ?? { rr, servers: new Set<string>() };
      known.servers.add(r.address);
      dsSeen.set(k, known);
    }
  }
  const dnssecDsReplies = dsReplies.filter((r) => r.dnssec);
  if (dnssecDsReplies.length > 0) queries.push(queryFrom(zone, RRType.DS, dnssecDsReplies, parent, judge));
  const { ds, validDsKeys } = matchDs(zone, [...dsSeen.values()], reading.keysOf(zone));

  const errors: Problem[] = [];
  let status: DelegationStatus;
  if (dsSeen.size > 0) {
    const securePath = [...dsSeen.values()].some(
      (d) => supportedAlgorithms.has(d.rr.rdata.algorithm) && supportedDigestTypes.has(d.rr.rdata.digestType),
    );
    if (secureEntry(reading, zone, own, validDsKeys)) status = 'SECURE';
    else {
      if (securePath)
        errors.push({
          code: 'NO_SEP',
          description:
            'No valid RRSIG made by a key a DS names covers the DNSKEY RRset: there is no secure entry point into the zone (RFC 4035, Sec. 2.2).',
        });
      status = securePath ? 'BOGUS' : 'INSECURE';
    }
  } else if (reading.keysOf(parent).length > 0 || reading.signedZones.has(parent.key())) {
    // A signed parent must prove there is no DS.
    const proven = dnssecDsReplies.some((r) => negativeProof(r.message, zone, RRType.DS, parent)?.status === 'VALID');
    status = proven ? 'INSECURE' : 'BOGUS';
  } else status = 'INSECURE';

  // As DNSViz: lame when none of the zone's servers answered its own questions (DS is the parent's)
  // with NOERROR or NXDOMAIN, or none with the AA bit; a referral is no authoritative answer.
  const ownAnswers = answered.filter((r) => inZone(zone, r) && reading.zoneOf(r.qname).equals(zone) && r.qtype !== RRType.DS);
  const authoritative =
    ownAnswers.some((r) => r.message.rcode === Rcode.NOERROR || r.message.rcode === Rcode.NXDOMAIN) && ownAnswers.some((r) => r.message.aa);
  if (status === 'INSECURE' && !authoritative) status = 'LAME';
  if (dsReplies.some((r) => r.message.rcode === Rcode.NXDOMAIN)) {
    errors.push({
      code: 'NO_NS_IN_PARENT',
      description: `${dotted(parent)}'s servers answered NXDOMAIN for the DS: the delegation is missing on them.`,
    });
    if (status === 'INSECURE') status = 'INCOMPLETE';
  }
  return { status, ds, errors };
}

/** Each DS judged against the zone's keys it names; the keys a valid DS names. */
function matchDs(
  zone: Name,
  seen: readonly SeenDs[],
  zoneKeys: readonly ResourceRecord<DnskeyData>[],
): { ds: ChainDs[]; validDsKeys: DnskeyData[] } {
  const digestTypes = new Set(seen.map((d) => d.rr.rdata.digestType));
  const ds: ChainDs[] = [];
  const validDsKeys: DnskeyData[] = [];
  for (const { rr, servers } of seen) {
    const matching = zoneKeys.filter((k) => dsNamesKey(rr.rdata, k.rdata));
    const judged = matching.map((k) => ({ key: k.rdata, ...judgeDs(zone, rr.rdata, k.rdata, digestTypes) }));
    // As DNSViz: when several keys fit, the ones whose digest matches win, then those that do not.
    const best = judged.some((j) => j.status === 'VALID') ? judged.filter((j) => j.status === 'VALID') : judged;
    const base = {
      id: `${rr.rdata.algorithm}/${rr.rdata.keyTag}/${rr.rdata.digestType}`,
      algorithm: rr.rdata.algorithm,
      keyTag: rr.rdata.keyTag,
      digestType: rr.rdata.digestType,
      digest: Buffer.from(rr.rdata.digest).toString('base64'),
      ttl: rr.ttl,
      servers: sorted(servers),
    };
    if (best.length === 0) ds.push({ ...base, ...judgeDs(zone, rr.rdata, undefined, digestTypes) });
    for (const j of best) {
      ds.push({ ...base, status: j.status, errors: j.errors, warnings: j.warnings, key: keyId(j.key) });
      if (j.status === 'VALID') validDsKeys.push(j.key);
    }
  }
  ds.sort((a, b) => a.algorithm - b.algorithm || a.keyTag - b.keyTag || a.digestType - b.digestType || a.digest.localeCompare(b.digest));
  return { ds, validDsKeys };
}

/**
 * Secure when some server's DNSKEY RRset is signed, validly, by a key a valid DS names; the replies weighed
 * are DNSViz's for the secure entry point: complete, valid, from the zone's servers.
 */
function secureEntry(reading: ChainReading, zone: Name, own: readonly AnsweredReply[], validDsKeys: readonly DnskeyData[]): boolean {
  const dnskeyReplies = own.filter(
    (r) =>
      r.qtype === RRType.DNSKEY &&
      r.qname.equals(zone) &&
      r.dnssec &&
      !r.message.tc &&
      (r.message.rcode === Rcode.NOERROR || r.message.rcode === Rcode.NXDOMAIN),
  );
  return dnskeyReplies.some((r) => {
    const rrset = records<DnskeyData>(r.message, 'answer', zone, RRType.DNSKEY);
    const inSet = (key: DnskeyData) => rrset.find((k) => keyTag(k.rdata) === keyTag(key) && k.rdata.algorithm === key.algorithm);
    return rrsigsOver(r.message, 'answer', zone, RRType.DNSKEY).some((sig) =>
      validDsKeys.some(
        (key) =>
          key.algorithm === sig.rdata.algorithm &&
          keyTag(key) === sig.rdata.keyTag &&
          inSet(key) !== undefined &&
          reading.judgeOnce(rrset, sig, inSet(key), zone).status === 'VALID',
      ),
    );
  });
}
