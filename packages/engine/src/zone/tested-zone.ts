// The zone under test: its parent, the delegation the parent holds (or, in an undelegated test, the
// name servers and DS given instead), and the NS set the zone's own servers publish.
import { Name, RRType, recordIs, type Message } from '@app/dns';
import type { DsInput } from '../input.ts';
import type { Nameserver, QueryFlags } from '../net/nameserver-client.ts';
import type { Network } from '../net/network.ts';
import { byPresentation, displayName, nsNames, recordsFor, responseKind } from '../net/response.ts';
import { hintTlds, impossibleFromRoot } from '../net/root-impersonation.ts';
import { walkToZone } from './parent-walk.ts';
import type { Resolution, Resolver } from '../resolver/resolver.ts';

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
  readonly #others = new Map<string, Zone>();

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

  /** Another zone, found as this one is, sharing the run's cache and servers (e.g. an ASN lookup zone). */
  other(name: Name): Zone {
    const key = name.key();
    let zone = this.#others.get(key);
    if (!zone) {
      zone = new Zone(name, this.#resolver, this.#network);
      this.#others.set(key, zone);
    }
    return zone;
  }

  /** In an undelegated test, given name servers without an address that none can be found for. */
  async unaddressedNameservers(): Promise<{ tag: 'FAKE_DELEGATION_IN_ZONE_NO_IP' | 'FAKE_DELEGATION_NO_IP'; nsname: string }[]> {
    const given = this.undelegated?.nameservers ?? [];
    const bare = uniqueSorted(given.filter((n) => !given.some((m) => m.ip && m.ns.equals(n.ns))).map((n) => n.ns));
    const found = await Promise.all(bare.map(async (ns) => (ns.isSubdomainOf(this.name) ? [] : await this.#resolver.addressesOf(ns))));
    return bare.flatMap((ns, i) =>
      found[i].length > 0
        ? []
        : [
            {
              tag: ns.isSubdomainOf(this.name) ? ('FAKE_DELEGATION_IN_ZONE_NO_IP' as const) : ('FAKE_DELEGATION_NO_IP' as const),
              nsname: displayName(ns),
            },
          ],
    );
  }

  /** The root servers, when some were asked and none has answered at all: the network cannot reach the root. */
  unreachableRoot(): Nameserver[] {
    const roots = this.#resolver.rootServers;
    const asked = roots.some((server) => server.statistics.queries > 0);
    return asked && roots.every((server) => server.statistics.responses === 0) ? roots : [];
  }

  /**
   * The root servers that gave an answer the real root never gives (net/root-impersonation.ts), each
   * with the first such answer: something on the network answers in their place.
   */
  async interceptedRoot(): Promise<{ server: Nameserver; answer: Message }[]> {
    const roots = this.#resolver.rootServers;
    const tlds = hintTlds(roots.map((server) => server.name));
    const found: { server: Nameserver; answer: Message }[] = [];
    for (const server of roots) {
      for (const pending of this.#network.answersOf(server.address)) {
        const answer = await pending;
        if (answer !== undefined && impossibleFromRoot(answer, tlds)) {
          found.push({ server, answer });
          break;
        }
      }
    }
    return found;
  }

  /** The root servers the run starts from (the hints). */
  get rootServers(): Nameserver[] {
    return this.#resolver.rootServers;
  }

  /** An undelegated test with name servers given (not only DS): the parent is not asked. */
  get hasGivenNameservers(): boolean {
    return (this.undelegated?.nameservers.length ?? 0) > 0;
  }

  familyEnabled(family: 4 | 6): boolean {
    return this.#network.familyEnabled(family);
  }

  /** The walk from the root to the zone (Basic01's, and the parent's servers in MethodsV2), made once. */
  readonly parentWalk = once(() => walkToZone(this));

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
    // DS records given alone (no name servers) leave the delegation as the parent has it.
    if (this.undelegated?.nameservers.length) return uniqueSorted(this.undelegated.nameservers.map((n) => n.ns));
    const parent = await this.parent();
    if (!parent) return [];
    const responses = await Promise.all(parent.servers.map((server) => server.query(this.name, RRType.NS)));
    for (const response of responses) {
      const names = response ? nsNames(response, this.name) : [];
      if (names.length > 0) return names;
    }
    return [];
  });

  /** Address records in the first answer a parent server gives to the zone's NS query (the glue as given, not looked up). */
  readonly glueAddresses = once(async (): Promise<{ name: Name; address: string }[]> => {
    const parent = this.undelegated ? undefined : await this.parent();
    for (const server of parent?.servers ?? []) {
      const response = await server.query(this.name, RRType.NS);
      if (!response) continue;
      return [...response.answer, ...response.authority, ...response.additional].flatMap((rr) =>
        recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA) ? [{ name: rr.name.toLowerCase(), address: rr.rdata.address }] : [],
      );
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
        const inZoneWithoutIp = given.length > 0 && ips.length === 0 && nsName.isSubdomainOf(this.name);
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
    const perName = await Promise.all(
      (await this.nsNames()).map(async (nsName) =>
        (await this.#resolver.addressesOf(nsName)).map((address) => this.#network.server(nsName, address)),
      ),
    );
    return perName.flat();
  });

  /** The zone's own NS names as every one of its servers gives them (the reference's Method 3). */
  readonly childNsNames = once(async (): Promise<Name[]> => {
    const answers = await this.queryAll(this.name, RRType.NS);
    return uniqueSorted(answers.flatMap(({ response }) => (response ? nsNames(response, this.name) : [])));
  });

  /** Delegation and zone name servers together, one per name and address, in text order (Method 4 ∪ 5). */
  readonly allServers = once(async (): Promise<Nameserver[]> => {
    const [glue, ns] = await Promise.all([this.glue(), this.ns()]);
    const byText = new Map([...glue, ...ns].map((server) => [server.toString(), server]));
    return [...byText.keys()].sort().map((key) => byText.get(key)!);
  });

  /** Resolves a name from the root, following CNAME chains into other zones (cached for the run). */
  resolve(qname: Name, qtype: number): Promise<Resolution> {
    return this.#resolver.recurse(qname, qtype);
  }

  /**
   * Resolves a name from the root without following a CNAME out of the answering zone: the answer the
   * zone holding `name` gives, as the reference's Recursor->recurse returns it (it follows no CNAME).
   */
  recurse(name: Name, type: number): Promise<Resolution> {
    return this.#resolver.recurseWithinZone(name, type);
  }

  /** The run's name server object for a name at an address, sharing its query cache with every test case. */
  server(name: Name, address: string): Nameserver {
    return this.#network.server(name, address);
  }

  /** Asks every server of the zone whose IP family is on, at once. */
  async queryAll(qname: Name, qtype: number, flags?: QueryFlags): Promise<{ server: Nameserver; response: Message | undefined }[]> {
    const servers = (await this.ns()).filter((server) => this.#network.familyEnabled(server.family));
    const responses = await Promise.all(servers.map((server) => server.query(qname, qtype, flags)));
    return servers.map((server, i) => ({ server, response: responses[i] }));
  }

  /** The first response, asking the zone's servers in order (the reference's query_one). */
  async queryOne(qname: Name, qtype: number, flags?: QueryFlags): Promise<Message | undefined> {
    return (await this.queryOneFrom(qname, qtype, flags))?.response;
  }

  /** query_one with the server that answered (the reference's answerfrom). */
  queryOneFrom(qname: Name, qtype: number, flags?: QueryFlags): Promise<{ server: Nameserver; response: Message } | undefined> {
    return this.#firstFrom(qname, qtype, flags, () => true);
  }

  /** The first authoritative response (query_auth). */
  async queryAuth(qname: Name, qtype: number, flags?: QueryFlags): Promise<Message | undefined> {
    return (await this.#firstFrom(qname, qtype, flags, (response) => response.aa))?.response;
  }

  /** The first response with records of `qtype` for `qname` (query_persistent). */
  async queryPersistent(qname: Name, qtype: number, flags?: QueryFlags): Promise<Message | undefined> {
    return (await this.#firstFrom(qname, qtype, flags, (response) => recordsFor(response, qtype, qname).length > 0))?.response;
  }

  async #firstFrom(
    qname: Name,
    qtype: number,
    flags: QueryFlags | undefined,
    accept: (response: Message) => boolean,
  ): Promise<{ server: Nameserver; response: Message } | undefined> {
    for (const server of await this.ns()) {
      if (!this.#network.familyEnabled(server.family)) continue;
      const response = await server.query(qname, qtype, flags);
      if (response && accept(response)) return { server, response };
    }
    return undefined;
  }

  /** DS records for the zone at the parent (asked with DO and CD), or those given for an undelegated test. */
  readonly dsFromParent = once(async (): Promise<DsInput[]> => {
    if (this.undelegated && (this.undelegated.ds.length > 0 || this.undelegated.nameservers.length > 0)) return this.undelegated.ds;
    const parent = await this.parent();
    for (const server of parent?.servers ?? []) {
      const response = await server.query(this.name, RRType.DS, { dnssec: true, cd: true });
      if (!response || response.rcode !== 0) continue;
      return recordsFor(response, RRType.DS, this.name, ['answer']).flatMap((rr) =>
        recordIs(rr, RRType.DS)
          ? [
              {
                keytag: rr.rdata.keyTag,
                algorithm: rr.rdata.algorithm,
                digtype: rr.rdata.digestType,
                digest: Buffer.from(rr.rdata.digest).toString('hex'),
              },
            ]
          : [],
      );
    }
    return [];
  });
}
