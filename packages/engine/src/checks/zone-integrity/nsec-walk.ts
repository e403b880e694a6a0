// Following a zone's NSEC chain as a zone walker does: ask for the NSEC record of each name, go on
// with its next name, until the chain comes back to the apex. Shows that the names can be listed.
import { Name, recordIs, RRType, type ResourceRecord } from '@app/dns';
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

/**
 * The name right after `name` in canonical order that is not below it (a zero byte added to its first
 * label): its NXDOMAIN carries the NSEC owned by `name`, where asking for that NSEC gets a referral
 * without one (a delegation with DS). Undefined when the label is already 63 bytes long.
 */
function justAfter(name: Name): Name | undefined {
  const [first, ...rest] = name.labels;
  if (first === undefined || first.length >= 63) return undefined;
  return Name.fromLabels([Uint8Array.of(...first, 0), ...rest]);
}

async function nsecOf(server: Nameserver, name: Name, apex: Name): Promise<{ nsec?: ResourceRecord; queries: number }> {
  const response = await server.query(name, RRType.NSEC, { dnssec: true });
  const nsec = response && nsecAt([...response.answer, ...response.authority], name);
  const after = name.equals(apex) ? undefined : justAfter(name);
  if (nsec !== undefined || after === undefined) return { nsec, queries: 1 };
  const next = await server.query(after, RRType.A, { dnssec: true });
  return { nsec: next && nsecAt(next.authority, name), queries: 2 };
}

export async function walkNsec(server: Nameserver, apex: Name, limit: number): Promise<NsecWalk> {
  const names: Name[] = [];
  let current = apex;
  let queries = 0;
  while (names.length < limit) {
    names.push(current);
    const found = await nsecOf(server, current, apex);
    queries += found.queries;
    const nsec = found.nsec;
    if (nsec === undefined || !recordIs(nsec, RRType.NSEC)) return { names, outcome: 'broken', queries };
    const next = nsec.rdata.nextDomain;
    if (next.equals(apex)) return { names, outcome: 'complete', queries };
    // A next name outside the zone, or one that goes backwards, is not a chain to follow.
    if (!next.isSubdomainOf(apex) || next.compareCanonical(current) <= 0) return { names, outcome: 'broken', queries };
    current = next;
  }
  return { names, outcome: 'limit', queries };
}
