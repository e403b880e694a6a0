// The questions a zone's servers were asked with DNSSEC records, grouped the way DNSViz's grok groups
// them: per question, its RRsets with their RRSIGs judged, or a negative answer with its NSEC/NSEC3 proof.
import type { Name } from '@app/dns';
import {
  Rcode,
  RRType,
  keyTag,
  proveNsec3NameError,
  proveNsec3NoData,
  proveNsecNameError,
  proveNsecNoData,
  recordIs,
  rdataToString,
  type DnskeyData,
  type Message,
  type Nsec3Data,
  type NsecData,
  type ResourceRecord,
} from '@app/dns';
import type { ChainQuery, ChainRrset, ChainRrsig } from './chain-analysis.ts';
import { collect, dotted, keyId, rrsigsOver, sorted, typeName, type ChainReading, type SeenRrset } from './chain-reading.ts';
import type { AnsweredReply } from './zone-cuts.ts';

/** Judges RRsets signed in `signerZone`; each valid signature adds "name/TYPE" to what its key `signs`. */
export type RrsetJudge = (seen: Map<string, SeenRrset>, signerZone: Name) => ChainRrset[];

export function rrsetJudge(reading: ChainReading, signs: Map<string, Set<string>>): RrsetJudge {
  return (seen, signerZone) =>
    [...seen.values()].map((entry) => {
      const first = entry.records[0];
      const rrsigs: ChainRrsig[] = [];
      for (const { rr: sig, servers: sigServers } of entry.rrsigs.values()) {
        const candidates = reading
          .keysOf(sig.rdata.signerName)
          .filter((k) => k.rdata.algorithm === sig.rdata.algorithm && keyTag(k.rdata) === sig.rdata.keyTag);
        const base = {
          id: `${dotted(sig.rdata.signerName)}/${sig.rdata.algorithm}/${sig.rdata.keyTag}`,
          signer: dotted(sig.rdata.signerName),
          algorithm: sig.rdata.algorithm,
          keyTag: sig.rdata.keyTag,
          originalTtl: sig.rdata.originalTtl,
          labels: sig.rdata.labels,
          inception: sig.rdata.inception,
          expiration: sig.rdata.expiration,
          ttl: sig.ttl,
          servers: sorted(sigServers),
        };
        for (const key of candidates.length > 0 ? candidates : [undefined]) {
          const { status, errors } = reading.judgeOnce(entry.records, sig, key, signerZone);
          if (key && status === 'VALID') addSigned(signs, key.rdata, `${dotted(first.name)}/${typeName(first.type)}`);
          rrsigs.push({ ...base, status, errors, ...(key && { key: keyId(key.rdata) }) });
        }
      }
      return {
        name: dotted(first.name),
        type: first.type,
        ttl: first.ttl,
        servers: sorted(entry.servers),
        rrsigs,
        rdata: entry.records.map((rr) => rdataToString(rr.type, rr.rdata as never)),
      };
    });
}

function addSigned(signs: Map<string, Set<string>>, key: DnskeyData, rrset: string): void {
  const set = signs.get(keyId(key)) ?? new Set<string>();
  set.add(rrset);
  signs.set(keyId(key), set);
}

/**
 * The zone's own questions: DNSKEY, SOA and NS at the apex, then every other question the run asked its
 * servers with DNSSEC records (the apex's other types, names below it, the DNSSEC10 probe name).
 */
export function zoneQueries(zone: Name, own: readonly AnsweredReply[], judge: RrsetJudge, notes: string[]): ChainQuery[] {
  const queries: ChainQuery[] = [];
  for (const type of [RRType.DNSKEY, RRType.SOA, RRType.NS]) {
    const asked = own.filter((r) => r.qtype === type && r.qname.equals(zone) && r.dnssec);
    if (asked.length === 0) {
      notes.push(`The run did not ask ${dotted(zone)} for ${typeName(type)} with DNSSEC records.`);
      continue;
    }
    queries.push(queryFrom(zone, type, asked, zone, judge));
  }
  const others = new Map<string, { qname: Name; qtype: number; replies: AnsweredReply[] }>();
  for (const r of own) {
    if (!r.dnssec || (r.qname.equals(zone) && ([RRType.DNSKEY, RRType.SOA, RRType.NS, RRType.DS] as number[]).includes(r.qtype))) continue;
    const key = `${r.qname.key()} ${r.qtype}`;
    const group = others.get(key) ?? { qname: r.qname, qtype: r.qtype, replies: [] };
    group.replies.push(r);
    others.set(key, group);
  }
  const otherQuestions = [...others.values()].sort((a, b) => a.qname.compareCanonical(b.qname) || a.qtype - b.qtype);
  for (const { qname, qtype, replies } of otherQuestions) queries.push(queryFrom(qname, qtype, replies, zone, judge));
  return queries;
}

/** The replies to one question: RRsets, or a negative answer with its proof (judged in `proofZone`). */
export function queryFrom(qname: Name, type: number, asked: readonly AnsweredReply[], proofZone: Name, judge: RrsetJudge): ChainQuery {
  const seen = new Map<string, SeenRrset>();
  const proofSeen = new Map<string, SeenRrset>();
  let proofType: 'NSEC' | 'NSEC3' | undefined;
  let proofStatus: 'VALID' | 'INVALID' = 'INVALID';
  let nodata = false;
  let nx = false;
  for (const r of asked) {
    // The answer's RRsets (the one asked for, or a CNAME on the way), each with its RRSIGs.
    const answer = r.message.answer.filter((rr) => rr.type !== RRType.RRSIG);
    if (answer.length > 0 && r.message.rcode === Rcode.NOERROR) {
      const groups = new Map<string, ResourceRecord[]>();
      for (const rr of answer) groups.set(`${rr.name.key()} ${rr.type}`, [...(groups.get(`${rr.name.key()} ${rr.type}`) ?? []), rr]);
      for (const rrset of groups.values()) collect(seen, rrset, rrsigsOver(r.message, 'answer', rrset[0].name, rrset[0].type), r.address);
      continue;
    }
    if (r.message.rcode === Rcode.NXDOMAIN) nx = true;
    else if (r.message.rcode === Rcode.NOERROR) nodata = true;
    else continue;
    const proof = negativeProof(r.message, qname, type, proofZone);
    if (proof) {
      proofType = proof.type;
      if (proof.status === 'VALID') proofStatus = 'VALID';
      for (const rr of r.message.authority.filter((x) => x.type === RRType.NSEC || x.type === RRType.NSEC3)) {
        collect(proofSeen, [rr], rrsigsOver(r.message, 'authority', rr.name, rr.type), r.address);
      }
    }
  }
  const kind: ChainQuery['kind'] = seen.size > 0 ? 'answer' : nx ? 'nxdomain' : nodata ? 'nodata' : 'error';
  return {
    name: dotted(qname),
    type,
    kind,
    rrsets: judge(seen, proofZone),
    servers: sorted(asked.map((r) => r.address)),
    ...(proofType && { proof: { type: proofType, status: proofStatus, rrsets: judge(proofSeen, proofZone) } }),
  };
}

/** The NSEC or NSEC3 proof a negative answer carries for (qname, qtype), if it carries any. */
export function negativeProof(
  message: Message,
  qname: Name,
  qtype: number,
  zone: Name,
): { type: 'NSEC' | 'NSEC3'; status: 'VALID' | 'INVALID' } | undefined {
  const nsecs = message.authority.filter((rr): rr is ResourceRecord<NsecData> => recordIs(rr, RRType.NSEC));
  const nsec3s = message.authority.filter((rr): rr is ResourceRecord<Nsec3Data> => recordIs(rr, RRType.NSEC3));
  const nx = message.rcode === Rcode.NXDOMAIN;
  if (nsecs.length > 0) {
    const result = nx ? proveNsecNameError(nsecs, qname, zone) : proveNsecNoData(nsecs, qname, qtype, zone);
    return { type: 'NSEC', status: result.ok ? 'VALID' : 'INVALID' };
  }
  if (nsec3s.length > 0) {
    const result = nx ? proveNsec3NameError(nsec3s, qname, zone) : proveNsec3NoData(nsec3s, qname, qtype, zone);
    return { type: 'NSEC3', status: result.ok ? 'VALID' : 'INVALID' };
  }
  return undefined;
}
