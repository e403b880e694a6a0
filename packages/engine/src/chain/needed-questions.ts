// The few questions the chain needs that a run's query log lacks, as DNSViz asks them: every zone's
// DNSKEY RRset (with DO) from each of its servers, the DS of every zone below the root (with DO) from
// each of its parent's servers, and, for a zone whose servers the log never showed, its NS RRset from
// the parent's servers. A question the log already holds for that address is never asked again, nor
// is an address that the run found silent (asked, and never answered) while another of the zone's
// answered, nor an address never asked in an IP family no server answered in.
import { ipFamily, Name, RRType } from '@app/dns';
import type { Exchange } from '../net/network.ts';
import { readQueryLog } from './query-log.ts';
import { findZoneCuts, type AnsweredReply } from './zone-cuts.ts';

// Plain string order, not localeCompare: the first collation of a process starts ICU (some 5 ms), and
// the questions go out together, so their order only sets which is sent first.
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export interface NeededQuestion {
  /** The server's host name (no final dot) and address. */
  server: string;
  address: string;
  qname: string;
  qtype: number;
}

/** What of the chain is missing from `exchanges`; `families` are the IP families the run may use. */
export function neededQuestions(
  domain: string,
  exchanges: readonly Exchange[],
  families: { ipv4: boolean; ipv6: boolean },
): NeededQuestion[] {
  const replies = readQueryLog(exchanges);
  const target = Name.fromString(domain.endsWith('.') ? domain : `${domain}.`).toLowerCase();
  const answered = replies.filter((r): r is AnsweredReply => r.message !== undefined);
  const cuts = findZoneCuts(target, answered);

  const nameByAddress = new Map<string, string>();
  const heard = new Set<string>();
  const asked = new Set<string>();
  const questionKey = (address: string, qname: Name | string, qtype: number): string =>
    `${address} ${typeof qname === 'string' ? qname : qname.key()} ${qtype}`;
  for (const r of replies) {
    if (r.serverName && !nameByAddress.has(r.address)) nameByAddress.set(r.address, r.serverName);
    if (r.message) heard.add(r.address);
    if (r.dnssec || r.qtype === RRType.NS) asked.add(questionKey(r.address, r.qname, r.qtype));
  }
  const tried = new Set(replies.map((r) => r.address));
  // The same few addresses come up for every zone: each is parsed once.
  const familyByAddress = new Map<string, 0 | 4 | 6>();
  const familyOf = (address: string): 0 | 4 | 6 => {
    let family = familyByAddress.get(address);
    if (family === undefined) familyByAddress.set(address, (family = ipFamily(address)));
    return family;
  };
  const addressesByName = new Map<string, string[]>();
  for (const r of replies) {
    const list = addressesByName.get(r.serverName) ?? [];
    list.push(r.address);
    addressesByName.set(r.serverName, list);
  }
  const heardFamilies = new Set([...heard].map(familyOf));
  const familyOn = (address: string): boolean => {
    const family = familyOf(address);
    return !((family === 4 && !families.ipv4) || (family === 6 && !families.ipv6));
  };

  /** The zone's servers, one per address: its NS names at every address the log holds for them, and those that answered for it. */
  const serversOf = (zone: Name): { server: string; address: string }[] => {
    const found = new Map<string, string>();
    for (const host of cuts.nsNames.get(zone.key()) ?? []) {
      const addresses = [...(cuts.glue.get(zone.key())?.get(host) ?? []), ...(cuts.authAddresses.get(host) ?? [])];
      addresses.push(...(addressesByName.get(host) ?? []));
      for (const address of addresses) if (!found.has(address)) found.set(address, host);
    }
    for (const address of cuts.servers.get(zone.key()) ?? []) {
      const name = nameByAddress.get(address);
      if (name && !found.has(address)) found.set(address, name);
    }
    const all = [...found].filter(([address]) => familyOn(address));
    // An address the run found silent is left alone, unless none of the zone's servers ever answered:
    // then (as DNSViz, which asks every server) it is asked, since a server that dropped only the
    // run's first questions (SOA, say) may answer these, and without any answer the zone looks lame.
    const someHeard = all.some(([address]) => heard.has(address));
    // An address never asked is asked only in an IP family some server answered in, so a machine
    // without IPv6 does not wait out a timeout per IPv6 address of every zone.
    const untriedOk = (address: string): boolean => !tried.has(address) && heardFamilies.has(familyOf(address));
    return all
      .filter(([address]) => heard.has(address) || untriedOk(address) || (!someHeard && tried.has(address)))
      .map(([address, server]) => ({ server, address }))
      .sort((a, b) => byCodeUnits(a.address, b.address));
  };

  const needed: NeededQuestion[] = [];
  const ask = (servers: readonly { server: string; address: string }[], qname: Name, qtype: number): void => {
    for (const { server, address } of servers) {
      const key = questionKey(address, qname, qtype);
      if (asked.has(key)) continue;
      asked.add(key);
      needed.push({ server, address, qname: qname.toString(), qtype });
    }
  };
  for (const zone of cuts.chain) {
    const own = serversOf(zone);
    ask(own, zone, RRType.DNSKEY);
    const parent = cuts.parentOf(zone);
    if (!parent) continue;
    const parentServers = serversOf(parent);
    ask(parentServers, zone, RRType.DS);
    if (own.length === 0) ask(parentServers, zone, RRType.NS);
  }
  return needed;
}
