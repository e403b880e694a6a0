// The delegation and DNSSEC chain from the root to the tested zone, as DNSViz sees it, read from the
// run's query log alone (no question is asked again). Zones are the names on the way down that some
// reply showed NS records for; each gets its servers, the DS its parent gave, its DNSKEYs, the RRSIGs
// over its DNSKEY, SOA, NS and DS RRsets, and the delegation status by DNSViz's rules. The steps: read
// the log (chain-reading.ts), then per zone its questions (chain-queries.ts) and delegation (chain-delegation.ts).
import { Rcode, RRType, keyTag, type DnskeyData, type Name, type ResourceRecord } from '@app/dns';
import type { Exchange } from '../net/network.ts';
import type { ChainAnalysis, ChainDnskey, ChainZone } from './chain-analysis.ts';
import { judgeDelegation } from './chain-delegation.ts';
import { rrsetJudge, zoneQueries } from './chain-queries.ts';
import { dotted, keyId, rdataKey, readChain, records, sorted, type ChainReading } from './chain-reading.ts';
import { keyLength } from './statuses.ts';
import type { AnsweredReply } from './zone-cuts.ts';

export type * from './chain-analysis.ts';

export interface AnalyseChainInput {
  domain: string;
  exchanges: readonly Exchange[];
  /** When signatures are judged (default: now); a restored run passes the time it was saved. */
  at?: Date;
}

export function analyseChain(input: AnalyseChainInput): ChainAnalysis {
  const reading = readChain(input.domain, input.exchanges, input.at ?? new Date());
  return { domain: dotted(reading.target), judgedAt: reading.judgedAt, zones: reading.chain.map((zone) => analyseZone(reading, zone)) };
}

function analyseZone(reading: ChainReading, zone: Name): ChainZone {
  const parent = reading.parentOf(zone);
  const notes: string[] = [];
  const own = reading.answered.filter((r) => reading.inZone(zone, r) && reading.zoneOf(r.qname).equals(zone));
  if (!own.some((r) => r.qtype === RRType.DNSKEY && r.qname.equals(zone)))
    notes.push(`The run did not ask ${dotted(zone)}'s servers for its DNSKEY RRset.`);
  // Which RRsets each key validly signs, filled in as signatures are judged.
  const signs = new Map<string, Set<string>>();
  const judge = rrsetJudge(reading, signs);
  const queries = zoneQueries(zone, own, judge, notes);
  const delegation = parent && judgeDelegation(reading, { zone, parent, own, judge, queries, notes });

  const apexReplies = reading.answered.filter((r) => r.qname.equals(zone));
  const nxdomain = apexReplies.length > 0 && apexReplies.every((r) => r.message.rcode === Rcode.NXDOMAIN);
  return {
    name: dotted(zone),
    ...(parent && { parent: dotted(parent) }),
    status: nxdomain ? 'NXDOMAIN' : 'NOERROR',
    servers: zoneServers(reading, zone),
    dnskeys: zoneDnskeys(zone, own, signs),
    ...(delegation && { delegation }),
    queries,
    notes,
  };
}

/** The zone's name servers, each with the glue its parent gave and the addresses found for it. */
function zoneServers({ nsNames, glue, authAddresses }: ChainReading, zone: Name): ChainZone['servers'] {
  const glueOf = glue.get(zone.key()) ?? new Map<string, Set<string>>();
  return sorted(nsNames.get(zone.key()) ?? []).map((host) => ({
    name: `${host}.`,
    glue: sorted(glueOf.get(host) ?? []),
    auth: sorted(authAddresses.get(host) ?? []),
  }));
}

function zoneDnskeys(zone: Name, own: readonly AnsweredReply[], signs: Map<string, Set<string>>): ChainDnskey[] {
  const keyEntries = new Map<string, { rr: ResourceRecord<DnskeyData>; servers: Set<string> }>();
  for (const r of own.filter((x) => x.qtype === RRType.DNSKEY && x.qname.equals(zone))) {
    for (const rr of records<DnskeyData>(r.message, 'answer', zone, RRType.DNSKEY)) {
      const k = rdataKey(RRType.DNSKEY, rr.rdata);
      const known = keyEntries.get(k) ?? { rr, servers: new Set<string>() };
      known.servers.add(r.address);
      keyEntries.set(k, known);
    }
  }
  const dnskeys = [...keyEntries.values()].map(({ rr, servers }) => ({
    id: keyId(rr.rdata),
    flags: rr.rdata.flags,
    protocol: rr.rdata.protocol,
    algorithm: rr.rdata.algorithm,
    key: Buffer.from(rr.rdata.publicKey).toString('base64'),
    ttl: rr.ttl,
    keyLength: keyLength(rr.rdata),
    keyTag: keyTag(rr.rdata),
    servers: sorted(servers),
    signs: sorted(signs.get(keyId(rr.rdata)) ?? []),
  }));
  return dnskeys.sort((a, b) => a.algorithm - b.algorithm || a.keyTag - b.keyTag || a.key.localeCompare(b.key));
}
