// The delegation's and the zone's name servers as engine 9.0 gathers them for Connectivity04 and
// Consistency05 (its TestMethodsV2): the delegation from what the parent's servers answer (NS names,
// and glue for names inside the zone), the zone's own NS names from what those servers answer, and
// addresses for the other names from the recursor. A name no address is found for stays bare.
import type { Name} from '@app/dns';
import { Rcode, RRType, recordIs, type Message } from '@app/dns';
import type { Nameserver } from '../net/nameserver-client.ts';
import { recordsFor, responseKind } from '../net/response.ts';
import type { Zone } from './tested-zone.ts';

export interface ServerSet {
  /** Names with the addresses found for them, one object per (name, address), in 'name/ip' order. */
  servers: Nameserver[];
  /** Names no address was found for. */
  bare: Name[];
}

export interface ServerSets {
  /** The parent's servers that answer for the zone, one per address. */
  parent: Nameserver[];
  delegation: ServerSet;
  zone: ServerSet;
}

const sets = new WeakMap<Zone, Promise<ServerSets>>();

/** The sets of `zone`, gathered once per zone object. */
export function serverSets(zone: Zone): Promise<ServerSets> {
  let pending = sets.get(zone);
  if (!pending) {
    pending = gather(zone);
    sets.set(zone, pending);
  }
  return pending;
}

/** One server per address, the first in 'name/ip' order (the reference's get_*_ns_ips). */
export function onePerAddress(servers: readonly Nameserver[]): Nameserver[] {
  const byAddress = new Map<string, Nameserver>();
  for (const server of [...servers].sort((a, b) => (a.toString() < b.toString() ? -1 : a.toString() > b.toString() ? 1 : 0))) {
    if (!byAddress.has(server.address)) byAddress.set(server.address, server);
  }
  return [...byAddress.values()];
}

/** Builds a set keyed by lower-case name: a name with any address loses its bare entry. */
class Collector {
  readonly #zone: Zone;
  readonly #byName = new Map<string, { name: Name; addresses: Set<string> }>();

  constructor(zone: Zone) {
    this.#zone = zone;
  }

  add(name: Name, address?: string): void {
    const key = name.key();
    const entry = this.#byName.get(key) ?? { name: name.toLowerCase(), addresses: new Set<string>() };
    if (address !== undefined) entry.addresses.add(address);
    this.#byName.set(key, entry);
  }

  bareNames(): Name[] {
    return [...this.#byName.values()].filter((e) => e.addresses.size === 0).map((e) => e.name);
  }

  result(): ServerSet {
    const servers = [...this.#byName.values()].flatMap((e) => [...e.addresses].map((address) => this.#zone.server(e.name, address)));
    return { servers: servers.sort((a, b) => (a.toString() < b.toString() ? -1 : a.toString() > b.toString() ? 1 : 0)), bare: this.bareNames() };
  }
}

/** Addresses of `qtype` for `name` in an answer, through the CNAME chain the answer itself holds. */
function answerAddresses(message: Message | undefined, name: Name, qtype: number): string[] {
  if (!message || message.rcode !== Rcode.NOERROR) return [];
  let target = name;
  for (let hops = 0; hops < 10; hops++) {
    const cname = recordsFor(message, RRType.CNAME, target, ['answer']).find((rr) => recordIs(rr, RRType.CNAME));
    if (!cname || !recordIs(cname, RRType.CNAME)) break;
    target = cname.rdata.target;
  }
  return recordsFor(message, qtype, target).flatMap((rr) => (recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA) ? [rr.rdata.address] : []));
}

/** A and AAAA of a name from the recursor. */
async function resolved(zone: Zone, name: Name): Promise<string[]> {
  const lookups = await Promise.all([RRType.A, RRType.AAAA].map(async (qtype) => answerAddresses((await zone.recurse(name, qtype)).message, name, qtype)));
  return lookups.flat();
}

/** NS names for the zone in one section, and the addresses the additional section gives those inside it. */
function namesWithGlue(zone: Zone, message: Message, section: 'answer' | 'authority', into: Collector): Name[] {
  const names = recordsFor(message, RRType.NS, zone.name, [section]).flatMap((rr) => (recordIs(rr, RRType.NS) ? [rr.rdata.target.toLowerCase()] : []));
  const wanted = new Set(names.map((n) => n.key()));
  for (const name of names) into.add(name);
  for (const rr of message.additional) {
    if ((recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA)) && wanted.has(rr.name.key()) && rr.name.isSubdomainOf(zone.name)) into.add(rr.name, rr.rdata.address);
  }
  return names;
}

async function gather(zone: Zone): Promise<ServerSets> {
  const parentZone = zone.undelegated || zone.name.isRoot ? undefined : await zone.parent();
  const parent = onePerAddress(parentZone?.servers ?? []);
  const delegation = new Collector(zone);
  if (zone.undelegated) {
    for (const given of zone.undelegated.nameservers) delegation.add(given.ns, given.ip);
  } else if (zone.name.isRoot) {
    for (const server of await zone.glue()) delegation.add(server.name, server.address);
  } else {
    const responses = await Promise.all(parent.map((server) => server.query(zone.name, RRType.NS)));
    for (const response of responses) {
      if (!response || response.rcode !== Rcode.NOERROR) continue;
      if (responseKind(response) === 'referral') {
        namesWithGlue(zone, response, 'authority', delegation);
      } else if (response.aa && recordsFor(response, RRType.NS, zone.name, ['answer']).length > 0) {
        namesWithGlue(zone, response, 'answer', delegation);
        const bare = delegation.bareNames();
        const found = await Promise.all(bare.map((name) => resolved(zone, name)));
        bare.forEach((name, i) => found[i].forEach((address) => delegation.add(name, address)));
      }
    }
  }
  // Names outside the zone get the addresses the recursor finds.
  const outside = delegation.bareNames().filter((name) => !name.isSubdomainOf(zone.name));
  const outsideFound = await Promise.all(outside.map((name) => resolved(zone, name)));
  outside.forEach((name, i) => outsideFound[i].forEach((address) => delegation.add(name, address)));
  const delegationSet = delegation.result();

  // The zone's own NS names, as the delegation's servers give them with authority.
  const answers = await Promise.all(delegationSet.servers.map((server) => server.query(zone.name, RRType.NS)));
  const zoneNames = new Map<string, Name>();
  for (const response of answers) {
    if (!response || !response.aa || response.rcode !== Rcode.NOERROR) continue;
    for (const rr of recordsFor(response, RRType.NS, zone.name, ['answer'])) if (recordIs(rr, RRType.NS)) zoneNames.set(rr.rdata.target.key(), rr.rdata.target.toLowerCase());
  }
  const own = new Collector(zone);
  const inside = [...zoneNames.values()].filter((name) => name.isSubdomainOf(zone.name));
  const insideFound = await Promise.all(inside.map((name) => addressesFromServers(zone, name, delegationSet.servers)));
  for (const name of zoneNames.values()) own.add(name);
  inside.forEach((name, i) => insideFound[i].forEach((address) => own.add(name, address)));
  const ownOutside = [...zoneNames.values()].filter((name) => !name.isSubdomainOf(zone.name));
  const ownOutsideFound = await Promise.all(ownOutside.map((name) => resolved(zone, name)));
  ownOutside.forEach((name, i) => ownOutsideFound[i].forEach((address) => own.add(name, address)));
  return { parent, delegation: delegationSet, zone: own.result() };
}

/**
 * Addresses of an in-zone name as the given servers answer them with authority; a server that
 * refers onwards is followed by the recursor.
 */
async function addressesFromServers(zone: Zone, name: Name, servers: readonly Nameserver[]): Promise<string[]> {
  const found = await Promise.all(
    servers.flatMap((server) =>
      [RRType.A, RRType.AAAA].map(async (qtype) => {
        let response = await server.query(name, qtype);
        if (response && responseKind(response) === 'referral') response = (await zone.recurse(name, qtype)).message;
        return response?.aa ? answerAddresses(response, name, qtype) : [];
      }),
    ),
  );
  return [...new Set(found.flat())];
}
