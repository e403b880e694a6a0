// The specifications' MethodsV2 as the reference (9.0.1) has them, the one place the engine gathers
// them (Address01, Connectivity04, Consistency05): the parent's name servers (from the walk down from
// the root), the delegation they give (NS names with the glue inside the zone, the other names looked
// up), and the zone's own NS set (names from every delegated server, in-zone addresses asked of those
// servers). A name without an address stays a bare name.
import { Rcode, RRType, recordIs, type Message, type Name } from '@app/dns';
import type { Nameserver } from '../net/nameserver-client.ts';
import { addressesIn, nsNames, recordsFor, responseKind } from '../net/response.ts';
import type { Zone } from './tested-zone.ts';

export type ServerOrName = Nameserver | Name;

const isServer = (item: ServerOrName): item is Nameserver => 'address' in item;

/** A set of servers and names, as the reference's NameserverSet: a name counts until a server of it is added. */
class ServerSet {
  readonly #servers = new Map<string, Nameserver>();
  readonly #names = new Map<string, Name>();

  add(item: ServerOrName): void {
    if (isServer(item)) this.#servers.set(item.toString(), item);
    else this.#names.set(item.key(), item.toLowerCase());
  }

  addresses(name: Name): string[] {
    return [...this.#servers.values()].filter((server) => server.name.equals(name)).map((server) => server.address);
  }

  get names(): Name[] {
    return [...this.#names.values(), ...[...this.#servers.values()].map((s) => s.name)].filter(
      (n, i, all) => all.findIndex((m) => m.equals(n)) === i,
    );
  }

  items(): ServerOrName[] {
    const servers = [...this.#servers.values()];
    return [...servers, ...[...this.#names.values()].filter((name) => !servers.some((server) => server.name.equals(name)))];
  }
}

/** The reference's order of name servers: by name, IPv4 before IPv6, then by address. */
export function compareServers(a: Nameserver, b: Nameserver): number {
  const byName = a.nameText < b.nameText ? -1 : a.nameText > b.nameText ? 1 : 0;
  // The addresses' forms have the same length and separators, so plain string order is numeric order
  // (and localeCompare's, which would start ICU for it).
  const x = numericAddress(a);
  const y = numericAddress(b);
  return byName || a.family - b.family || (x < y ? -1 : x > y ? 1 : 0);
}

function numericAddress(server: Nameserver): string {
  if (server.family === 4)
    return server.address
      .split('.')
      .map((octet) => octet.padStart(3, '0'))
      .join('.');
  const [head = '', tail = ''] = server.address.toLowerCase().split('::');
  const groups = (text: string): string[] => (text === '' ? [] : text.split(':'));
  const missing = 8 - groups(head).length - groups(tail).length;
  return [...groups(head), ...Array<string>(server.address.includes('::') ? missing : 0).fill('0'), ...groups(tail)]
    .map((g) => g.padStart(4, '0'))
    .join(':');
}

/** Addresses of a host name looked up from the root, CNAMEs followed. */
async function lookUp(zone: Zone, name: Name): Promise<string[]> {
  const found = await Promise.all(
    [RRType.A, RRType.AAAA].map(async (type) => {
      const { message, canonical } = await zone.resolve(name, type);
      return message?.rcode === Rcode.NOERROR ? addressesIn(message, canonical, ['answer']) : [];
    }),
  );
  return found.flat();
}

/** The parent's servers that delegate the zone or serve it, one per address; undefined when none was found. */
export async function parentServers(zone: Zone): Promise<Nameserver[] | undefined> {
  if (zone.name.isRoot || zone.hasGivenNameservers) return [];
  const found = (await zone.parentWalk())
    .filter((walk) => walk.verdict?.kind === 'delegation' || walk.verdict?.kind === 'soa')
    .map((walk) => walk.server);
  if (found.length === 0) return undefined;
  const byAddress = new Map<string, Nameserver>();
  for (const server of [...found].sort(compareServers)) if (!byAddress.has(server.address)) byAddress.set(server.address, server);
  return [...byAddress.values()].sort(compareServers);
}

/** NS names of a response for the zone, with the glue it carries for names inside the zone. */
function withInZoneGlue(zone: Zone, response: Message, section: 'answer' | 'authority', into: ServerSet): void {
  for (const nsName of nsNames(response, zone.name, [section])) {
    into.add(nsName);
    if (!nsName.isSubdomainOf(zone.name)) continue;
    for (const address of addressesIn(response, nsName, ['additional'])) into.add(zone.server(nsName, address));
  }
}

/** The delegation (servers with addresses, names without), as the parent's servers give it; undefined without a parent. */
export async function delegation(zone: Zone): Promise<ServerOrName[] | undefined> {
  const set = new ServerSet();
  if (zone.hasGivenNameservers) {
    for (const given of zone.undelegated!.nameservers) {
      const ips = zone.undelegated!.nameservers.filter((n) => n.ns.equals(given.ns) && n.ip).map((n) => n.ip!);
      if (given.ns.isSubdomainOf(zone.name) && ips.length > 0) for (const ip of ips) set.add(zone.server(given.ns, ip));
      else set.add(given.ns);
    }
    return set.items();
  }
  if (zone.name.isRoot) return zone.rootServers;
  const parents = await parentServers(zone);
  if (!parents) return undefined;
  const responses = await Promise.all(parents.map((server) => server.query(zone.name, RRType.NS)));
  for (const response of responses) {
    if (!response || response.rcode !== Rcode.NOERROR) continue;
    if (responseKind(response) === 'referral') withInZoneGlue(zone, response, 'authority', set);
    else if (response.aa && recordsFor(response, RRType.NS, zone.name, ['answer']).length > 0) {
      withInZoneGlue(zone, response, 'answer', set);
      for (const nsName of set.names.filter((name) => set.addresses(name).length === 0)) {
        for (const address of await lookUp(zone, nsName)) set.add(zone.server(nsName, address));
      }
    }
  }
  return set.items();
}

/** Servers (or bare names) for names outside the zone: given addresses in an undelegated test, else looked up. */
async function outOfZone(zone: Zone, names: Name[]): Promise<ServerOrName[]> {
  const given = zone.undelegated?.nameservers ?? [];
  const perName = await Promise.all(
    names
      .filter((name) => !name.isSubdomainOf(zone.name))
      .map(async (name): Promise<ServerOrName[]> => {
        const fake = zone.hasGivenNameservers ? given.filter((n) => n.ns.equals(name) && n.ip).map((n) => n.ip!) : [];
        const addresses = fake.length > 0 ? fake : await lookUp(zone, name);
        return addresses.length > 0 ? addresses.map((address) => zone.server(name, address)) : [name];
      }),
  );
  return perName.flat();
}

/** The delegation with addresses for its names outside the zone (get_del_ns_names_and_ips). */
export async function delegationWithAddresses(zone: Zone): Promise<ServerOrName[] | undefined> {
  const items = await delegation(zone);
  if (!items) return undefined;
  const bare = items.filter((item): item is Name => !isServer(item));
  const set = new ServerSet();
  for (const item of [...items, ...(await outOfZone(zone, bare))]) set.add(item);
  return set.items();
}

/** NS names the delegated servers give with authority (get_zone_ns_names). */
export async function zoneNsNames(zone: Zone): Promise<Name[] | undefined> {
  const items = await delegationWithAddresses(zone);
  if (!items) return undefined;
  const servers = items.filter(isServer);
  const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.NS)));
  const set = new ServerSet();
  for (const response of responses)
    if (response?.aa && response.rcode === Rcode.NOERROR) for (const name of nsNames(response, zone.name, ['answer'])) set.add(name);
  return set.names;
}

/**
 * The delegated servers grouped by the copy of the zone they serve: the serial of their SOA and the NS
 * set they give, both with authority. A server whose SOA or NS did not come with authority is a group
 * of its own.
 */
export async function byZoneCopy(zone: Zone, servers: readonly Nameserver[]): Promise<Nameserver[][]> {
  const groups = new Map<string, Nameserver[]>();
  await Promise.all(
    servers.map(async (server) => {
      const [soa, ns] = await Promise.all([server.query(zone.name, RRType.SOA), server.query(zone.name, RRType.NS)]);
      const serial =
        soa?.aa && soa.rcode === Rcode.NOERROR
          ? recordsFor(soa, RRType.SOA, zone.name, ['answer']).find((r) => recordIs(r, RRType.SOA))?.rdata.serial
          : undefined;
      const names =
        ns?.aa && ns.rcode === Rcode.NOERROR
          ? nsNames(ns, zone.name, ['answer'])
              .map((name) => name.key())
              .sort()
              .join(' ')
          : undefined;
      const key = serial === undefined || names === undefined ? `alone ${server.address}` : `${serial} ${names}`;
      groups.set(key, [...(groups.get(key) ?? []), server]);
    }),
  );
  return [...groups.values()].map((group) => group.sort(compareServers));
}

/**
 * The addresses `servers` give with authority for the names inside the zone, as servers of them. The
 * reference asks every server for every name (88 names at 107 addresses: 38,000 queries); servers of
 * one copy of the zone give the same answers, so each copy is asked once, by its first server that
 * answers with authority. `followCnames`: an address at the end of a CNAME chain in the answer counts.
 */
export async function inZoneAddresses(
  zone: Zone,
  names: readonly Name[],
  servers: readonly Nameserver[],
  options: { followCnames: boolean },
): Promise<Nameserver[]> {
  const copies = names.length === 0 ? [] : await byZoneCopy(zone, servers);
  const asked = await Promise.all(
    names.flatMap((name) =>
      copies.flatMap((copy) =>
        [RRType.A, RRType.AAAA].map(async (type) => {
          for (const server of copy) {
            const response = await server.query(name, type);
            if (!response?.aa || response.rcode !== Rcode.NOERROR) continue;
            let target = name;
            for (let hops = 0; options.followCnames && hops < 10; hops++) {
              const cname = recordsFor(response, RRType.CNAME, target, ['answer'])[0];
              if (!cname || !recordIs(cname, RRType.CNAME)) break;
              target = cname.rdata.target;
            }
            const records = options.followCnames
              ? addressesIn(response, target, ['answer'])
              : recordsFor(response, type, name, ['answer']).flatMap((rr) =>
                  recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA) ? [rr.rdata.address] : [],
                );
            return records.map((address) => zone.server(name, address));
          }
          return [];
        }),
      ),
    ),
  );
  return asked.flat();
}

// Up to this many questions the in-zone names' addresses are asked ahead, beside the NS query.
const prefetchLimit = 256;

/** The zone's own NS set with addresses: names inside the zone asked of the delegated servers, others looked up. */
export async function zoneNsWithAddresses(zone: Zone): Promise<ServerOrName[] | undefined> {
  // The zone's NS names are nearly always the delegation's: the addresses of those inside the zone are
  // asked of the delegated servers with the NS RRset, not a round trip after it (the answers are kept).
  const delegation = (await delegationWithAddresses(zone)) ?? [];
  const guessed = new Map(
    delegation
      .map((item) => (isServer(item) ? item.name : item))
      .filter((name) => name.isSubdomainOf(zone.name))
      .map((name) => [name.key(), name]),
  );
  const delegatedServers = delegation.filter(isServer);
  if (delegatedServers.length * guessed.size * 2 <= prefetchLimit) {
    for (const server of delegatedServers) {
      for (const name of guessed.values()) for (const type of [RRType.A, RRType.AAAA]) server.query(name, type).catch(() => {});
    }
  }
  const names = await zoneNsNames(zone);
  if (!names) return undefined;
  const delegated = ((await delegationWithAddresses(zone)) ?? []).filter(isServer);
  const inZone = names.filter((name) => name.isSubdomainOf(zone.name));
  const inZoneServers = await inZoneAddresses(zone, inZone, delegated, { followCnames: true });
  const outside = await outOfZone(zone, names);
  const set = new ServerSet();
  for (const name of names) {
    if (name.isSubdomainOf(zone.name)) {
      const servers = inZoneServers.filter((server) => server.name.equals(name));
      if (servers.length > 0) servers.forEach((server) => set.add(server));
      else set.add(name);
    } else {
      for (const item of outside) if ((isServer(item) ? item.name : item).equals(name)) set.add(item);
    }
  }
  return set.items();
}

/** A MethodsV2 set split for the test cases that read it: servers in 'name/ip' order, and the names no address was found for. */
export interface ServerSplit {
  servers: Nameserver[];
  bare: Name[];
}

export interface ServerSets {
  /** The parent's servers that answer for the zone, one per address. */
  parent: Nameserver[];
  delegation: ServerSplit;
  zone: ServerSplit;
}

const byText = (a: Nameserver, b: Nameserver): number => (a.toString() < b.toString() ? -1 : a.toString() > b.toString() ? 1 : 0);

function split(items: readonly ServerOrName[] | undefined): ServerSplit {
  const all = items ?? [];
  return { servers: all.filter(isServer).sort(byText), bare: all.filter((item): item is Name => !isServer(item)) };
}

const gathered = new WeakMap<Zone, Promise<ServerSets>>();

/** The three sets of `zone`, gathered once per zone object; empty where the reference finds no parent. */
export function serverSets(zone: Zone): Promise<ServerSets> {
  let pending = gathered.get(zone);
  if (!pending) {
    pending = Promise.all([parentServers(zone), delegationWithAddresses(zone), zoneNsWithAddresses(zone)]).then(
      ([parent, delegated, own]) => ({
        parent: parent ?? [],
        delegation: split(delegated),
        zone: split(own),
      }),
    );
    gathered.set(zone, pending);
  }
  return pending;
}

/** One server per address, the first in 'name/ip' order (the reference's get_*_ns_ips). */
export function onePerAddress(servers: readonly Nameserver[]): Nameserver[] {
  const byAddress = new Map<string, Nameserver>();
  for (const server of [...servers].sort(byText)) if (!byAddress.has(server.address)) byAddress.set(server.address, server);
  return [...byAddress.values()];
}

/**
 * `servers` with the delegation's servers added as the parent gives them, its glue addresses
 * included (get_del_ns_names_and_ips), in 'name/ip' order: the test cases that read Method 4 ∪ 5 of
 * MethodsV2 ask an address the glue names even when the zone itself no longer gives it.
 */
export async function withDelegationGlue(zone: Zone, servers: readonly Nameserver[]): Promise<Nameserver[]> {
  const { delegation } = await serverSets(zone);
  const all = new Map([...servers, ...delegation.servers].map((server) => [server.toString(), server]));
  return [...all.keys()].sort().map((key) => all.get(key)!);
}
