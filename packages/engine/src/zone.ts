// The zone under test: its parent, the delegation the parent holds (or, in an undelegated test, the
// name servers and DS given instead), and the NS set the zone's own servers publish.
import { Name, RRType, recordIs } from '@app/dns';
import type { DsInput } from './input.ts';
import type { Nameserver } from './net/nameserver.ts';
import type { Network } from './net/network.ts';
import { byPresentation, displayName, nsNames, recordsFor, responseKind } from './net/response.ts';
import type { Resolver } from './resolver/resolver.ts';

export interface ParentZone {
  name: Name;
  servers: Nameserver[];
}

export interface Undelegated {
  nameservers: { ns: Name; ip?: string }[];
  ds: DsInput[];
}

function once<T>(compute: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= compute());
}

function uniqueSorted(names: Name[]): Name[] {
  const byKey = new Map(names.map((n) => [n.key(), n.toLowerCase()]));
  return [...byKey.values()].sort(byPresentation);
}

export class Zone {
  readonly name: Name;
  readonly undelegated?: Undelegated;
  readonly #resolver: Resolver;
  readonly #network: Network;

  constructor(name: Name, resolver: Resolver, network: Network, undelegated?: Undelegated) {
    this.name = name.toLowerCase();
    this.#resolver = resolver;
    this.#network = network;
    if (undelegated) {
      this.undelegated = undelegated;
      const given = undelegated.nameservers;
      const withIp = given.flatMap((n) => (n.ip ? [network.server(n.ns, n.ip)] : []));
      const withoutIp = given.filter((n) => !given.some((m) => m.ip && m.ns.equals(n.ns))).map((n) => n.ns);
      if (given.length > 0) resolver.fakeDelegation(this.name, [...withIp, ...withoutIp]);
    }
  }

  /** In an undelegated test, given name servers without an address that none can be found for. */
  async unaddressedNameservers(): Promise<{ tag: 'FAKE_DELEGATION_IN_ZONE_NO_IP' | 'FAKE_DELEGATION_NO_IP'; nsname: string }[]> {
    const given = this.undelegated?.nameservers ?? [];
    const bare = uniqueSorted(given.filter((n) => !given.some((m) => m.ip && m.ns.equals(n.ns))).map((n) => n.ns));
    const found = await Promise.all(bare.map(async (ns) => (ns.isSubdomainOf(this.name) ? [] : await this.#resolver.addressesOf(ns))));
    return bare.flatMap((ns, i) =>
      found[i].length > 0 ? [] : [{ tag: ns.isSubdomainOf(this.name) ? ('FAKE_DELEGATION_IN_ZONE_NO_IP' as const) : ('FAKE_DELEGATION_NO_IP' as const), nsname: displayName(ns) }],
    );
  }

  get nameText(): string {
    return displayName(this.name);
  }

  /**
   * The zone above: found by resolving the zone's SOA from the root and taking the last zone that
   * referred towards it; a closer enclosing zone served by the same servers is then looked for.
   */
  readonly parent = once(async (): Promise<ParentZone | undefined> => {
    if (this.name.isRoot) return { name: Name.root, servers: this.#resolver.rootServers };
    const { trace } = await this.#resolver.recurse(this.name, RRType.SOA);
    const last = trace[trace.length - 1];
    const step = last.zone.equals(this.name) ? (trace[trace.length - 2] ?? trace[0]) : last;
    let parentName = step.zone;
    const direct = this.name.parent();
    if (direct && !direct.equals(parentName) && last.from) {
      const response = await last.from.query(direct, RRType.SOA);
      const soa = response?.answer.find((rr) => rr.type === RRType.SOA);
      if (soa) parentName = soa.name.toLowerCase();
    }
    return { name: parentName, servers: await this.#resolver.zoneServers(parentName) };
  });

  /** NS names of the delegation: from the first parent server whose response has them. */
  readonly glueNames = once(async (): Promise<Name[]> => {
    if (this.undelegated) return uniqueSorted(this.undelegated.nameservers.map((n) => n.ns));
    const parent = await this.parent();
    if (!parent) return [];
    const responses = await Promise.all(parent.servers.map((server) => server.query(this.name, RRType.NS)));
    for (const response of responses) {
      const names = response ? nsNames(response, this.name) : [];
      if (names.length > 0) return names;
    }
    return [];
  });

  /** The delegation's name servers with their addresses (the reference's Method 4). */
  readonly glue = once(async (): Promise<Nameserver[]> => {
    const names = await this.glueNames();
    const given = this.undelegated?.nameservers ?? [];
    const perName = await Promise.all(
      names.map(async (nsName) => {
        const ips = given.filter((n) => n.ns.equals(nsName) && n.ip).map((n) => n.ip!);
        // The reference gives an in-zone name without an address none.
        const inZoneWithoutIp = this.undelegated !== undefined && ips.length === 0 && nsName.isSubdomainOf(this.name);
        const addresses = ips.length > 0 ? [...new Set(ips)].sort() : inZoneWithoutIp ? [] : await this.#resolver.addressesOf(nsName);
        return addresses.map((address) => this.#network.server(nsName, address));
      }),
    );
    return perName.flat();
  });

  /** NS names the zone itself publishes: from the first delegated server giving an authoritative NOERROR answer. */
  readonly nsNames = once(async (): Promise<Name[]> => {
    if (this.name.isRoot) return uniqueSorted(this.#resolver.rootServers.map((s) => s.name));
    for (const server of await this.glue()) {
      const response = await server.query(this.name, RRType.NS);
      if (response && response.rcode === 0 && responseKind(response) === 'answer') return nsNames(response, this.name, ['answer']);
    }
    return [];
  });

  /** The zone's own name servers with their addresses (the reference's Method 5). */
  readonly ns = once(async (): Promise<Nameserver[]> => {
    if (this.name.isRoot) return this.#resolver.rootServers;
    const perName = await Promise.all((await this.nsNames()).map(async (nsName) => (await this.#resolver.addressesOf(nsName)).map((address) => this.#network.server(nsName, address))));
    return perName.flat();
  });

  /** DS records for the zone at the parent (asked with DO and CD), or those given for an undelegated test. */
  readonly dsFromParent = once(async (): Promise<DsInput[]> => {
    if (this.undelegated && (this.undelegated.ds.length > 0 || this.undelegated.nameservers.length > 0)) return this.undelegated.ds;
    const parent = await this.parent();
    for (const server of parent?.servers ?? []) {
      const response = await server.query(this.name, RRType.DS, { dnssec: true, cd: true });
      if (!response || response.rcode !== 0) continue;
      return recordsFor(response, RRType.DS, this.name, ['answer']).flatMap((rr) =>
        recordIs(rr, RRType.DS) ? [{ keytag: rr.rdata.keyTag, algorithm: rr.rdata.algorithm, digtype: rr.rdata.digestType, digest: Buffer.from(rr.rdata.digest).toString('hex') }] : [],
      );
    }
    return [];
  });
}
