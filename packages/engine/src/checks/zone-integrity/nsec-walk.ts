// Following a zone's NSEC chain as a zone walker does: ask for the NSEC record of each name, go on
// with its next name, until the chain comes back to the apex. Shows that the names can be listed.
import type { Name } from '@app/dns';
import { recordIs, RRType, type ResourceRecord } from '@app/dns';
import type { Nameserver } from '../../net/nameserver-client.ts';

export interface NsecWalk {
  /** The names found in chain order, the apex first. */
  names: Name[];
  /** complete: back at the apex; limit: stopped at the limit; broken: no NSEC came for `names`' last one. */
  outcome: 'complete' | 'limit' | 'broken';
  queries: number;
}

/** The NSEC owned by `name`: in the answer, or with a delegation's referral in the authority section. */
function nsecAt(records: readonly ResourceRecord[], name: Name) {
  return records.find((rr) => recordIs(rr, RRType.NSEC) && rr.name.equals(name));
}

export async function walkNsec(server: Nameserver, apex: Name, limit: number): Promise<NsecWalk> {
  const names: Name[] = [];
  let current = apex;
  let queries = 0;
  while (names.length < limit) {
    names.push(current);
    queries++;
    const response = await server.query(current, RRType.NSEC, { dnssec: true });
    const nsec = response && nsecAt([...response.answer, ...response.authority], current);
    if (nsec === undefined || !recordIs(nsec, RRType.NSEC)) return { names, outcome: 'broken', queries };
    const next = nsec.rdata.nextDomain;
    if (next.equals(apex)) return { names, outcome: 'complete', queries };
    // A next name outside the zone, or one that goes backwards, is not a chain to follow.
    if (!next.isSubdomainOf(apex) || next.compareCanonical(current) <= 0) return { names, outcome: 'broken', queries };
    current = next;
  }
  return { names, outcome: 'limit', queries };
}
