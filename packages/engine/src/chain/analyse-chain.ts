// The delegation and DNSSEC chain from the root to the tested zone, as DNSViz sees it, read from the
// run's query log alone (no question is asked again). Zones are the names on the way down that some
// reply showed NS records for; each gets its servers, the DS its parent gave, its DNSKEYs, the RRSIGs
// over its DNSKEY, SOA, NS and DS RRsets, and the delegation status by DNSViz's rules.
import {
  Name, Rcode, RRType, keyTag, typeToString, proveNsec3NameError, proveNsec3NoData, proveNsecNameError, proveNsecNoData, recordIs, rdataToString,
  type DnskeyData, type DsData, type Message, type Rdata, type Nsec3Data, type NsecData, type ResourceRecord, type RrsigData,
} from '@app/dns';
import type { Exchange } from '../net/network.ts';
import { readQueryLog, type LoggedReply } from './query-log.ts';
import { findZoneCuts } from './zone-cuts.ts';
import { dsNamesKey, judgeDs, judgeRrsig, keyLength, supportedAlgorithms, supportedDigestTypes, type DsStatus, type Problem, type RrsigStatus } from './statuses.ts';

export type DelegationStatus = 'SECURE' | 'INSECURE' | 'BOGUS' | 'INCOMPLETE' | 'LAME';

export interface ChainRrsig {
  /** "signer/algorithm/key tag", DNSViz's id. */
  id: string;
  signer: string;
  algorithm: number;
  keyTag: number;
  originalTtl: number;
  labels: number;
  inception: number;
  expiration: number;
  ttl: number;
  status: RrsigStatus;
  /** The DNSKEY ("algorithm/key tag") it was judged with; absent when the signer has none that fits. */
  key?: string;
  errors: Problem[];
  servers: string[];
}

export interface ChainRrset {
  name: string;
  type: number;
  ttl: number;
  rdata: string[];
  servers: string[];
  rrsigs: ChainRrsig[];
}

export interface ChainQuery {
  name: string;
  type: number;
  /** answer: RRsets came; nodata/nxdomain: a negative answer (with its NSEC/NSEC3 proof status); error: no usable answer. */
  kind: 'answer' | 'nodata' | 'nxdomain' | 'error';
  rrsets: ChainRrset[];
  proof?: { type: 'NSEC' | 'NSEC3'; status: 'VALID' | 'INVALID'; rrsets: ChainRrset[] };
  servers: string[];
}

export interface ChainDnskey {
  /** "algorithm/key tag". */
  id: string;
  flags: number;
  protocol: number;
  algorithm: number;
  key: string;
  ttl: number;
  keyLength: number;
  keyTag: number;
  servers: string[];
  /** The RRsets ("name/TYPE") this key makes a valid signature over. */
  signs: string[];
}

export interface ChainDs {
  /** "algorithm/key tag/digest type". */
  id: string;
  algorithm: number;
  keyTag: number;
  digestType: number;
  digest: string;
  ttl: number;
  status: DsStatus;
  /** The DNSKEY ("algorithm/key tag") it was judged against. */
  key?: string;
  errors: Problem[];
  warnings: Problem[];
  servers: string[];
}

export interface ChainZone {
  /** With the final dot, lower case. */
  name: string;
  parent?: string;
  status: 'NOERROR' | 'NXDOMAIN';
  servers: { name: string; glue: string[]; auth: string[] }[];
  dnskeys: ChainDnskey[];
  delegation?: { status: DelegationStatus; ds: ChainDs[]; errors: Problem[] };
  queries: ChainQuery[];
  /** What the run did not ask that DNSViz's view would use, said plainly. */
  notes: string[];
}

export interface ChainAnalysis {
  domain: string;
  /** Seconds since the epoch at which signatures were judged. */
  judgedAt: number;
  zones: ChainZone[];
}

const typeName = (type: number): string => typeToString(type);
const dotted = (name: Name): string => {
  const text = name.toLowerCase().toString();
  return text.endsWith('.') ? text : `${text}.`;
};
const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();
const keyId = (key: DnskeyData): string => `${key.algorithm}/${keyTag(key)}`;
const rdataKey = (type: number, rdata: unknown): string => `${type} ${rdataToString(type, rdata as never)}`;

function records<T extends Rdata>(message: Message, section: 'answer' | 'authority' | 'additional', owner: Name, type: number): ResourceRecord<T>[] {
  return message[section].filter((rr) => rr.type === type && rr.name.equals(owner)) as ResourceRecord<T>[];
}

function rrsigsOver(message: Message, section: 'answer' | 'authority', owner: Name, type: number): ResourceRecord<RrsigData>[] {
  return message[section].filter((rr): rr is ResourceRecord<RrsigData> => recordIs(rr, RRType.RRSIG) && rr.rdata.typeCovered === type && rr.name.equals(owner));
}

/** One RRset as several servers gave it: the records once, with every server that sent them. */
interface SeenRrset {
  records: ResourceRecord[];
  rrsigs: Map<string, { rr: ResourceRecord<RrsigData>; servers: Set<string> }>;
  servers: Set<string>;
}

function collect(seen: Map<string, SeenRrset>, rrset: ResourceRecord[], rrsigs: ResourceRecord<RrsigData>[], server: string): void {
  if (rrset.length === 0) return;
  const key = rrset.map((rr) => rdataKey(rr.type, rr.rdata)).sort().join('\n');
  let entry = seen.get(key);
  if (!entry) {
    entry = { records: rrset, rrsigs: new Map(), servers: new Set() };
    seen.set(key, entry);
  }
  entry.servers.add(server);
  for (const sig of rrsigs) {
    const sigKey = rdataKey(RRType.RRSIG, sig.rdata);
    const known = entry.rrsigs.get(sigKey) ?? { rr: sig, servers: new Set<string>() };
    known.servers.add(server);
    entry.rrsigs.set(sigKey, known);
  }
}

export interface AnalyseChainInput {
  domain: string;
  exchanges: readonly Exchange[];
  /** When signatures are judged (default: now); a restored run passes the time it was saved. */
  at?: Date;
}

export function analyseChain(input: AnalyseChainInput): ChainAnalysis {
  const judgedAt = Math.floor((input.at ?? new Date()).getTime() / 1000);
  const replies = readQueryLog(input.exchanges);
  const target = Name.fromString(input.domain.endsWith('.') ? input.domain : `${input.domain}.`).toLowerCase();
  const answered = replies.filter((r): r is LoggedReply & { message: Message } => r.message !== undefined);

  const { chain, zoneOf, parentOf, nsNames, glue, authAddresses, servers } = findZoneCuts(target, answered);
  const inZone = (zone: Name, r: LoggedReply): boolean => servers.get(zone.key())?.has(r.address) === true;

  // The same RRSIG comes from every server, and the secure-entry check asks again: verify each once.
  const judged = new Map<string, ReturnType<typeof judgeRrsig>>();
  const judgeOnce = (rrset: readonly ResourceRecord[], sig: ResourceRecord<RrsigData>, key: ResourceRecord<DnskeyData> | undefined, signerZone: Name): ReturnType<typeof judgeRrsig> => {
    const id = [rrset.map((rr) => rdataKey(rr.type, rr.rdata)).sort().join(','), rdataKey(RRType.RRSIG, sig.rdata), key ? rdataKey(RRType.DNSKEY, key.rdata) : '-', signerZone.key()].join('|');
    let result = judged.get(id);
    if (!result) {
      result = judgeRrsig(rrset, sig, key, signerZone, judgedAt);
      judged.set(id, result);
    }
    return result;
  };

  const zones: ChainZone[] = [];
  const keysByZone = new Map<string, ResourceRecord<DnskeyData>[]>();
  const signedZones = new Set<string>();
  for (const r of answered) {
    for (const rr of [...r.message.answer, ...r.message.authority]) if (recordIs(rr, RRType.RRSIG)) signedZones.add(rr.rdata.signerName.key());
  }

  // Every zone's DNSKEYs first: an RRSIG over a child's DS is judged with its parent's keys.
  for (const zone of chain) {
    const keys = new Map<string, ResourceRecord<DnskeyData>>();
    for (const r of answered) {
      if (r.qtype !== RRType.DNSKEY || !r.qname.equals(zone) || !inZone(zone, r)) continue;
      for (const rr of records<DnskeyData>(r.message, 'answer', zone, RRType.DNSKEY)) keys.set(rdataKey(RRType.DNSKEY, rr.rdata), rr);
    }
    keysByZone.set(zone.key(), [...keys.values()]);
  }

  for (const zone of chain) {
    const parent = parentOf(zone);
    const zoneName = dotted(zone);
    const notes: string[] = [];
    const own = answered.filter((r) => inZone(zone, r) && zoneOf(r.qname).equals(zone));
    const zoneKeys = keysByZone.get(zone.key()) ?? [];
    const signs = new Map<string, Set<string>>();
    if (!own.some((r) => r.qtype === RRType.DNSKEY && r.qname.equals(zone))) notes.push(`The run did not ask ${zoneName}'s servers for its DNSKEY RRset.`);

    const judge = (seen: Map<string, SeenRrset>, signerKeys: (signer: Name) => ResourceRecord<DnskeyData>[], signerZone: Name): ChainRrset[] =>
      [...seen.values()].map((entry) => {
        const first = entry.records[0];
        const rrsigs: ChainRrsig[] = [];
        for (const { rr: sig, servers: sigServers } of entry.rrsigs.values()) {
          const candidates = signerKeys(sig.rdata.signerName).filter((k) => k.rdata.algorithm === sig.rdata.algorithm && keyTag(k.rdata) === sig.rdata.keyTag);
          const base = {
            id: `${dotted(sig.rdata.signerName)}/${sig.rdata.algorithm}/${sig.rdata.keyTag}`,
            signer: dotted(sig.rdata.signerName), algorithm: sig.rdata.algorithm, keyTag: sig.rdata.keyTag, originalTtl: sig.rdata.originalTtl,
            labels: sig.rdata.labels, inception: sig.rdata.inception, expiration: sig.rdata.expiration, ttl: sig.ttl, servers: sorted(sigServers),
          };
          for (const key of candidates.length > 0 ? candidates : [undefined]) {
            const { status, errors } = judgeOnce(entry.records, sig, key, signerZone);
            if (key && status === 'VALID') {
              const set = signs.get(keyId(key.rdata)) ?? new Set<string>();
              set.add(`${dotted(first.name)}/${typeName(first.type)}`);
              signs.set(keyId(key.rdata), set);
            }
            rrsigs.push({ ...base, status, errors, ...(key && { key: keyId(key.rdata) }) });
          }
        }
        return {
          name: dotted(first.name), type: first.type, ttl: first.ttl, servers: sorted(entry.servers), rrsigs,
          rdata: entry.records.map((rr) => rdataToString(rr.type, rr.rdata as never)),
        };
      });
    const keysOf = (signer: Name): ResourceRecord<DnskeyData>[] => keysByZone.get(signer.key()) ?? [];

    // The zone's own RRsets with DNSSEC: DNSKEY, SOA, NS.
    const queries: ChainQuery[] = [];
    for (const type of [RRType.DNSKEY, RRType.SOA, RRType.NS]) {
      const asked = own.filter((r) => r.qtype === type && r.qname.equals(zone) && r.dnssec);
      if (asked.length === 0) {
        notes.push(`The run did not ask ${zoneName} for ${typeName(type)} with DNSSEC records.`);
        continue;
      }
      queries.push(queryFrom(zone, type, asked, zone, (seen) => judge(seen, keysOf, zone)));
    }
    // Every other question the run asked the zone's servers with DNSSEC records (the apex's other
    // types, names below it, the DNSSEC10 probe name), with its RRSIGs or its denial proof.
    const others = new Map<string, { qname: Name; qtype: number; replies: (LoggedReply & { message: Message })[] }>();
    for (const r of own) {
      if (!r.dnssec || (r.qname.equals(zone) && ([RRType.DNSKEY, RRType.SOA, RRType.NS, RRType.DS] as number[]).includes(r.qtype))) continue;
      const key = `${r.qname.key()} ${r.qtype}`;
      const group = others.get(key) ?? { qname: r.qname, qtype: r.qtype, replies: [] };
      group.replies.push(r);
      others.set(key, group);
    }
    const otherQuestions = [...others.values()].sort((a, b) => a.qname.compareCanonical(b.qname) || a.qtype - b.qtype);
    for (const { qname, qtype, replies } of otherQuestions) queries.push(queryFrom(qname, qtype, replies, zone, (seen) => judge(seen, keysOf, zone)));

    // The DNSKEY replies DNSViz weighs for the secure entry point: complete, valid, from the zone's servers.
    const dnskeyReplies = own.filter((r) => r.qtype === RRType.DNSKEY && r.qname.equals(zone) && r.dnssec && !r.message.tc && (r.message.rcode === Rcode.NOERROR || r.message.rcode === Rcode.NXDOMAIN));

    let delegation: ChainZone['delegation'];
    if (parent) {
      const dsReplies = answered.filter((r) => r.qtype === RRType.DS && r.qname.equals(zone) && inZone(parent, r) && !inZone(zone, r));
      if (dsReplies.length === 0) notes.push(`The run did not ask ${dotted(parent)}'s servers for the DS of ${zoneName}; the delegation is judged as if there were none.`);
      const dsSeen = new Map<string, { rr: ResourceRecord<DsData>; servers: Set<string> }>();
      for (const r of dsReplies) {
        for (const rr of records<DsData>(r.message, 'answer', zone, RRType.DS)) {
          const k = rdataKey(RRType.DS, rr.rdata);
          const known = dsSeen.get(k) ?? { rr, servers: new Set<string>() };
          known.servers.add(r.address);
          dsSeen.set(k, known);
        }
      }
      const dnssecDsReplies = dsReplies.filter((r) => r.dnssec);
      if (dnssecDsReplies.length > 0) queries.push(queryFrom(zone, RRType.DS, dnssecDsReplies, parent, (seen) => judge(seen, keysOf, parent)));

      const digestTypes = new Set([...dsSeen.values()].map((d) => d.rr.rdata.digestType));
      const ds: ChainDs[] = [];
      const validDsKeys: { ds: DsData; key: DnskeyData }[] = [];
      for (const { rr, servers: dsServers } of dsSeen.values()) {
        const matching = zoneKeys.filter((k) => dsNamesKey(rr.rdata, k.rdata));
        const judged = matching.map((k) => ({ key: k.rdata, ...judgeDs(zone, rr.rdata, k.rdata, digestTypes) }));
        // As DNSViz: when several keys fit, the ones whose digest matches win, then those that do not.
        const best = judged.some((j) => j.status === 'VALID') ? judged.filter((j) => j.status === 'VALID') : judged;
        const base = {
          id: `${rr.rdata.algorithm}/${rr.rdata.keyTag}/${rr.rdata.digestType}`, algorithm: rr.rdata.algorithm, keyTag: rr.rdata.keyTag,
          digestType: rr.rdata.digestType, digest: Buffer.from(rr.rdata.digest).toString('base64'), ttl: rr.ttl, servers: sorted(dsServers),
        };
        if (best.length === 0) ds.push({ ...base, ...judgeDs(zone, rr.rdata, undefined, digestTypes) });
        for (const j of best) {
          ds.push({ ...base, status: j.status, errors: j.errors, warnings: j.warnings, key: keyId(j.key) });
          if (j.status === 'VALID') validDsKeys.push({ ds: rr.rdata, key: j.key });
        }
      }
      ds.sort((a, b) => a.algorithm - b.algorithm || a.keyTag - b.keyTag || a.digestType - b.digestType || a.digest.localeCompare(b.digest));

      const errors: Problem[] = [];
      let status: DelegationStatus | undefined;
      if (dsSeen.size > 0) {
        const securePath = [...dsSeen.values()].some((d) => supportedAlgorithms.has(d.rr.rdata.algorithm) && supportedDigestTypes.has(d.rr.rdata.digestType));
        // Secure when some server's DNSKEY RRset is signed, validly, by a key a valid DS names.
        const secureReply = dnskeyReplies.some((r) => {
          const rrset = records<DnskeyData>(r.message, 'answer', zone, RRType.DNSKEY);
          return rrsigsOver(r.message, 'answer', zone, RRType.DNSKEY).some((sig) =>
            validDsKeys.some(({ key }) => key.algorithm === sig.rdata.algorithm && keyTag(key) === sig.rdata.keyTag &&
              rrset.some((k) => keyTag(k.rdata) === keyTag(key) && k.rdata.algorithm === key.algorithm) &&
              judgeOnce(rrset, sig, rrset.find((k) => keyTag(k.rdata) === keyTag(key) && k.rdata.algorithm === key.algorithm), zone).status === 'VALID'));
        });
        if (secureReply) status = 'SECURE';
        else {
          if (securePath) errors.push({ code: 'NO_SEP', description: 'No valid RRSIG made by a key a DS names covers the DNSKEY RRset: there is no secure entry point into the zone (RFC 4035, Sec. 2.2).' });
          status = securePath ? 'BOGUS' : 'INSECURE';
        }
      } else if (keysByZone.get(parent.key())?.length || signedZones.has(parent.key())) {
        // A signed parent must prove there is no DS.
        const proven = dnssecDsReplies.some((r) => negativeProof(r.message, zone, RRType.DS, parent)?.status === 'VALID');
        status = proven ? 'INSECURE' : 'BOGUS';
      } else status = 'INSECURE';

      // As DNSViz: lame when none of the zone's servers answered its own questions (DS is the parent's)
      // with NOERROR or NXDOMAIN, or none with the AA bit; a referral is no authoritative answer.
      const ownAnswers = answered.filter((r) => inZone(zone, r) && zoneOf(r.qname).equals(zone) && r.qtype !== RRType.DS);
      const authoritative = ownAnswers.some((r) => r.message.rcode === Rcode.NOERROR || r.message.rcode === Rcode.NXDOMAIN) && ownAnswers.some((r) => r.message.aa);
      if (status === 'INSECURE' && !authoritative) status = 'LAME';
      const dsNxdomain = dsReplies.filter((r) => r.message.rcode === Rcode.NXDOMAIN);
      if (dsNxdomain.length > 0) {
        errors.push({ code: 'NO_NS_IN_PARENT', description: `${dotted(parent)}'s servers answered NXDOMAIN for the DS: the delegation is missing on them.` });
        if (status === 'INSECURE') status = 'INCOMPLETE';
      }
      delegation = { status, ds, errors };
    }

    const apexReplies = answered.filter((r) => r.qname.equals(zone));
    const nxdomain = apexReplies.length > 0 && apexReplies.every((r) => r.message.rcode === Rcode.NXDOMAIN);
    const glueOf = glue.get(zone.key()) ?? new Map<string, Set<string>>();
    const zoneServers = sorted(nsNames.get(zone.key()) ?? []).map((host) => ({
      name: `${host}.`, glue: sorted(glueOf.get(host) ?? []), auth: sorted(authAddresses.get(host) ?? []),
    }));

    const keyEntries = new Map<string, { rr: ResourceRecord<DnskeyData>; servers: Set<string> }>();
    for (const r of own.filter((x) => x.qtype === RRType.DNSKEY && x.qname.equals(zone))) {
      for (const rr of records<DnskeyData>(r.message, 'answer', zone, RRType.DNSKEY)) {
        const k = rdataKey(RRType.DNSKEY, rr.rdata);
        const known = keyEntries.get(k) ?? { rr, servers: new Set<string>() };
        known.servers.add(r.address);
        keyEntries.set(k, known);
      }
    }
    const dnskeys: ChainDnskey[] = [...keyEntries.values()].map(({ rr, servers: keyServers }) => ({
      id: keyId(rr.rdata), flags: rr.rdata.flags, protocol: rr.rdata.protocol, algorithm: rr.rdata.algorithm,
      key: Buffer.from(rr.rdata.publicKey).toString('base64'), ttl: rr.ttl, keyLength: keyLength(rr.rdata), keyTag: keyTag(rr.rdata),
      servers: sorted(keyServers), signs: sorted(signs.get(keyId(rr.rdata)) ?? []),
    }));
    dnskeys.sort((a, b) => a.algorithm - b.algorithm || a.keyTag - b.keyTag || a.key.localeCompare(b.key));

    zones.push({
      name: zoneName, ...(parent && { parent: dotted(parent) }), status: nxdomain ? 'NXDOMAIN' : 'NOERROR', servers: zoneServers, dnskeys,
      ...(delegation && { delegation }), queries, notes,
    });
  }
  return { domain: dotted(target), judgedAt, zones };

  /** The replies to one question, grouped the way grok groups them: RRsets, or a negative answer with its proof. */
  function queryFrom(qname: Name, type: number, asked: (LoggedReply & { message: Message })[], proofZone: Name, judgeAll: (seen: Map<string, SeenRrset>) => ChainRrset[]): ChainQuery {
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
      name: dotted(qname), type, kind, rrsets: judgeAll(seen), servers: sorted(asked.map((r) => r.address)),
      ...(proofType && { proof: { type: proofType, status: proofStatus, rrsets: judgeAll(proofSeen) } }),
    };
  }
}

/** The NSEC or NSEC3 proof a negative answer carries for (qname, qtype), if it carries any. */
function negativeProof(message: Message, qname: Name, qtype: number, zone: Name): { type: 'NSEC' | 'NSEC3'; status: 'VALID' | 'INVALID' } | undefined {
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
