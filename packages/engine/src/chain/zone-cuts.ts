// The zones between the root and the tested name as the query log shows them, and each zone's
// servers: the zone cuts are the names some reply gave NS records for; a zone's servers are those its
// NS records name (with the glue and authoritative addresses the log holds for them) and those that
// referred below it. Both the analysis and the questions it still needs read the log this way.
import { Name, RRType, rdataToString, type Message, type ResourceRecord } from '@app/dns';
import type { LoggedReply } from './query-log.ts';

export type AnsweredReply = LoggedReply & { message: Message };

export interface ZoneCuts {
  /** The root first, the tested name last. */
  chain: Name[];
  /** The deepest zone of the chain that contains the name. */
  zoneOf: (name: Name) => Name;
  parentOf: (zone: Name) => Name | undefined;
  /** NS host names (lower case, no final dot) by zone key. */
  nsNames: Map<string, Set<string>>;
  /** Glue addresses by zone key, then host name. */
  glue: Map<string, Map<string, Set<string>>>;
  /** Addresses an authoritative answer gave a host name, by host name. */
  authAddresses: Map<string, Set<string>>;
  /** The addresses that answered for each zone, by zone key. */
  servers: Map<string, Set<string>>;
}

const hostName = (name: Name): string => name.toLowerCase().toString().replace(/\.$/, '');

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key) ?? new Set<V>();
  set.add(value);
  map.set(key, set);
}

function nsRecords(message: Message, section: 'answer' | 'authority', owner: Name): ResourceRecord<{ target: Name }>[] {
  return message[section].filter((rr) => rr.type === RRType.NS && rr.name.equals(owner)) as ResourceRecord<{ target: Name }>[];
}

export function findZoneCuts(target: Name, answered: readonly AnsweredReply[]): ZoneCuts {
  const nsOwners = new Set<string>();
  for (const { message } of answered) for (const rr of [...message.answer, ...message.authority]) if (rr.type === RRType.NS) nsOwners.add(rr.name.key());
  const chain: Name[] = [];
  for (let n = target.labelCount; n >= 0; n--) {
    const name = Name.fromLabels(target.labels.slice(n));
    if (n === target.labelCount || nsOwners.has(name.key()) || n === 0) chain.push(name);
  }
  const zoneOf = (qname: Name): Name => [...chain].reverse().find((z) => qname.isSubdomainOf(z)) ?? Name.root;
  const parentOf = (zone: Name): Name | undefined => {
    const index = chain.findIndex((z) => z.equals(zone));
    return index > 0 ? chain[index - 1] : undefined;
  };

  const nsNames = new Map<string, Set<string>>();
  const glue = new Map<string, Map<string, Set<string>>>();
  for (const zone of chain) {
    for (const { message } of answered) {
      for (const rr of [...nsRecords(message, 'answer', zone), ...nsRecords(message, 'authority', zone)]) {
        const host = hostName(rr.rdata.target);
        addTo(nsNames, zone.key(), host);
        if (message.answer.length > 0) continue;
        for (const extra of message.additional) {
          if ((extra.type === RRType.A || extra.type === RRType.AAAA) && extra.name.equals(rr.rdata.target)) {
            const byName = glue.get(zone.key()) ?? new Map<string, Set<string>>();
            addTo(byName, host, rdataToString(extra.type, extra.rdata as never));
            glue.set(zone.key(), byName);
          }
        }
      }
    }
  }
  const authAddresses = new Map<string, Set<string>>();
  for (const r of answered) {
    if (!r.message.aa) continue;
    for (const rr of r.message.answer) {
      if ((rr.type === RRType.A || rr.type === RRType.AAAA) && rr.name.equals(r.qname)) addTo(authAddresses, hostName(rr.name), rdataToString(rr.type, rr.rdata as never));
    }
  }
  const servers = new Map<string, Set<string>>();
  for (const r of answered) {
    for (const zone of chain) if (nsNames.get(zone.key())?.has(r.serverName)) addTo(servers, zone.key(), r.address);
    // A referral: the server speaks for the zone above the cut it hands out.
    const referral = r.message.answer.length === 0 && !r.message.aa && r.message.authority.find((rr) => rr.type === RRType.NS);
    if (referral) {
      const parent = parentOf(zoneOf(referral.name));
      if (parent && zoneOf(referral.name).equals(referral.name)) addTo(servers, parent.key(), r.address);
    }
  }
  return { chain, zoneOf, parentOf, nsNames, glue, authAddresses, servers };
}
