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

interface NsRecord {
  message: Message;
  rr: ResourceRecord<{ target: Name }>;
}

/** Every NS record of the replies by owner key: in the log's order, a reply's answer before its authority. */
function nsRecordsByOwner(answered: readonly AnsweredReply[]): Map<string, NsRecord[]> {
  const byOwner = new Map<string, NsRecord[]>();
  for (const { message } of answered) {
    for (const section of [message.answer, message.authority]) {
      for (const rr of section) {
        if (rr.type !== RRType.NS) continue;
        const key = rr.name.key();
        const list = byOwner.get(key) ?? [];
        list.push({ message, rr: rr as ResourceRecord<{ target: Name }> });
        byOwner.set(key, list);
      }
    }
  }
  return byOwner;
}

export function findZoneCuts(target: Name, answered: readonly AnsweredReply[]): ZoneCuts {
  // Indexed once: a zone's NS records were looked for in every reply, once per zone of the chain.
  const nsByOwner = nsRecordsByOwner(answered);
  const nsOwners = new Set(nsByOwner.keys());
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
    const zoneKey = zone.key();
    for (const { message, rr } of nsByOwner.get(zoneKey) ?? []) {
      const host = hostName(rr.rdata.target);
      addTo(nsNames, zoneKey, host);
      if (message.answer.length > 0) continue;
      for (const extra of message.additional) {
        if ((extra.type === RRType.A || extra.type === RRType.AAAA) && extra.name.equals(rr.rdata.target)) {
          const byName = glue.get(zoneKey) ?? new Map<string, Set<string>>();
          addTo(byName, host, rdataToString(extra.type, extra.rdata as never));
          glue.set(zoneKey, byName);
        }
      }
    }
  }
  const authAddresses = new Map<string, Set<string>>();
  for (const r of answered) {
    if (!r.message.aa) continue;
    for (const rr of r.message.answer) {
      if ((rr.type === RRType.A || rr.type === RRType.AAAA) && rr.name.equals(r.qname))
        addTo(authAddresses, hostName(rr.name), rdataToString(rr.type, rr.rdata as never));
    }
  }
  const servers = new Map<string, Set<string>>();
  const chainKeys = chain.map((zone) => zone.key());
  for (const r of answered) {
    for (const zoneKey of chainKeys) if (nsNames.get(zoneKey)?.has(r.serverName)) addTo(servers, zoneKey, r.address);
    // A referral: the server speaks for the zone above the cut it hands out.
    const referral = r.message.answer.length === 0 && !r.message.aa && r.message.authority.find((rr) => rr.type === RRType.NS);
    if (referral) {
      const parent = parentOf(zoneOf(referral.name));
      if (parent && zoneOf(referral.name).equals(referral.name)) addTo(servers, parent.key(), r.address);
    }
  }
  return { chain, zoneOf, parentOf, nsNames, glue, authAddresses, servers };
}
