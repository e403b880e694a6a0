// Iterative resolution from the root hints, with a cache for the run. Referrals are followed downwards
// only, each zone once; glue is used when given, other server names are resolved on demand; CNAME
// chains are followed. Loop and depth limits keep a broken world from trapping us.
import { Name, Rcode, RRType, recordIs, type Message } from '@app/dns';
import type { Nameserver } from '../net/nameserver-client.ts';
import type { Network } from '../net/network.ts';
import { addressesIn, byPresentation, byText, nsNames, responseKind } from '../net/response.ts';
import type { Message as Note } from '../finding.ts';
import { followCname, lookupKey, needsFollowing, newChainState, type ChainState } from './cname-following.ts';
import type { RootHint } from './root-hints.ts';

/** One zone on the way down: its name and the servers a referral (or the hints) gave for it. */
export interface TraceStep {
  zone: Name;
  servers: ServerCandidates;
  /** The server that referred us here; none for the root. */
  from?: Nameserver;
}

export interface Resolution {
  /** The final response, if any server gave a usable one. */
  message?: Message;
  /** Zones visited from the root down. */
  trace: TraceStep[];
  /** The name the final answer is for, after following CNAMEs. */
  canonical: Name;
  /** What following a CNAME found (the reference's SYSTEM CNAME_* tags), for `recurseWithinZone`. */
  notes?: Note[];
}

/** Servers of a zone: ones with known addresses, then names still to be resolved. */
export type ServerCandidates = (Nameserver | Name)[];

const maxReferrals = 30;
const maxCnames = 8;
const maxDepth = 6;

function sortServers(servers: Nameserver[]): Nameserver[] {
  return servers.sort((a, b) => byPresentation(a.name, b.name) || byText(a.address, b.address));
}

export interface ResolverOptions {
  /**
   * The zone under test: a referral on the way down to it starts, at once, the lookups that finding its
   * parent and delegation make next (see #prefetch), instead of one after another.
   */
  prefetchFor?: Name;
}

export class Resolver {
  readonly #network: Network;
  readonly #root: Nameserver[];
  readonly #prefetchFor: Name | undefined;
  readonly #prefetched = new Set<string>();
  readonly #cache = new Map<string, Promise<Resolution>>();
  // Which cached resolution waits for which: awaiting one that (indirectly) waits for us would never end.
  readonly #waitsFor = new Map<string, Set<string>>();
  // An undelegated test: the parent's servers are taken to refer to these servers for the zone.
  #fake: { zone: Name; servers: ServerCandidates } | undefined;

  constructor(network: Network, rootHints: readonly RootHint[], options: ResolverOptions = {}) {
    this.#network = network;
    this.#prefetchFor = options.prefetchFor?.toLowerCase();
    this.#root = sortServers(rootHints.map((hint) => network.server(Name.fromString(hint.name), hint.address)));
  }

  /** From now on, resolution below `zone` goes to `servers` instead of what the parent says. */
  fakeDelegation(zone: Name, servers: ServerCandidates): void {
    this.#fake = { zone: zone.toLowerCase(), servers };
    this.#cache.clear();
  }

  get rootServers(): Nameserver[] {
    return [...this.#root];
  }

  /** Resolves `name`/`type` from the root. `requester` is the resolution asking, for loop detection. */
  recurse(name: Name, type: number, requester?: string, depth = 0): Promise<Resolution> {
    const key = `${name.key()}|${type}`;
    const cached = this.#cache.get(key);
    if (cached) {
      if (requester !== undefined && (requester === key || this.#reaches(key, requester))) {
        return Promise.resolve({ trace: [], canonical: name });
      }
      return this.#waitOn(requester, key, cached);
    }
    if (depth > maxDepth) return Promise.resolve({ trace: [], canonical: name });
    const pending = this.#iterate(name, type, key, depth);
    this.#cache.set(key, pending);
    return this.#waitOn(requester, key, pending);
  }

  async #waitOn(requester: string | undefined, key: string, pending: Promise<Resolution>): Promise<Resolution> {
    if (requester === undefined) return pending;
    const edges = this.#waitsFor.get(requester) ?? new Set<string>();
    this.#waitsFor.set(requester, edges);
    edges.add(key);
    try {
      return await pending;
    } finally {
      edges.delete(key);
    }
  }

  #reaches(from: string, target: string, seen = new Set<string>()): boolean {
    if (from === target) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    for (const next of this.#waitsFor.get(from) ?? []) if (this.#reaches(next, target, seen)) return true;
    return false;
  }

  /**
   * The reference's recursor (9.0.1): like `recurse`, but a CNAME answer is followed the reference's
   * way (`cname-following.ts`), and its verdicts are kept as `notes`.
   */
  recurseWithinZone(name: Name, type: number): Promise<Resolution> {
    const key = `${name.key()}|${type}|within-zone`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const state = newChainState();
    const pending = this.#recursor(name, type, state).then((resolution): Resolution =>
      state.notes.length > 0 ? { ...resolution, notes: state.notes } : resolution,
    );
    this.#cache.set(key, pending);
    return pending;
  }

  async #recursor(name: Name, type: number, state: ChainState): Promise<Resolution> {
    const key = lookupKey(name, type);
    if (state.inProgress.has(key)) return { trace: [], canonical: name };
    state.inProgress.add(key);
    const resolution = await this.#descend(name, type, [{ zone: Name.root, servers: this.rootServers }], `${key}|within-zone`, 0);
    const { message } = resolution;
    if (!message || responseKind(message) !== 'answer' || !needsFollowing(message, name, type)) return resolution;
    const followed = await followCname(name, type, message, state, (target, targetType, sameState) =>
      this.#recursor(target, targetType, sameState),
    );
    return { ...(followed.message && { message: followed.message }), trace: resolution.trace, canonical: followed.canonical };
  }

  /** Addresses of a host name, IPv4 and IPv6, sorted; empty when it does not resolve. */
  async addressesOf(name: Name, requester?: string, depth = 0): Promise<string[]> {
    const [a, aaaa] = await Promise.all([
      this.recurse(name, RRType.A, requester, depth),
      this.recurse(name, RRType.AAAA, requester, depth),
    ]);
    if (a.message?.rcode === Rcode.NXDOMAIN) return [];
    const found = new Set<string>();
    for (const resolution of [a, aaaa]) {
      if (resolution.message) for (const address of addressesIn(resolution.message, resolution.canonical, ['answer'])) found.add(address);
    }
    return [...found].sort();
  }

  async #iterate(name: Name, type: number, key: string, depth: number): Promise<Resolution> {
    let qname = name;
    let trace: TraceStep[] = [{ zone: Name.root, servers: this.rootServers }];
    for (let cnames = 0; ; cnames++) {
      const resolution = await this.#descend(qname, type, trace, key, depth);
      const target = resolution.message && type !== RRType.CNAME ? cnameTarget(resolution.message, qname, type) : undefined;
      if (!target || cnames >= maxCnames) return resolution;
      // The chain leaves the answer without the data: start again from the root for the target.
      qname = target;
      trace = [{ zone: Name.root, servers: this.rootServers }];
    }
  }

  async #descend(qname: Name, type: number, trace: TraceStep[], key: string, depth: number): Promise<Resolution> {
    const seen = new Set<string>([Name.root.key()]);
    let fallback: Message | undefined;
    for (let referrals = 0; referrals <= maxReferrals; referrals++) {
      const step = trace[trace.length - 1];
      const fake = this.#fake;
      const faking =
        fake !== undefined && qname.isSubdomainOf(fake.zone) && step.zone.labelCount < fake.zone.labelCount && !seen.has(fake.zone.key());
      const fakeStep = (from?: Nameserver): TraceStep => {
        seen.add(fake!.zone.key());
        return { zone: fake!.zone, servers: fake!.servers, ...(from && { from }) };
      };
      let next: TraceStep | undefined;
      for await (const server of this.#expand(step.servers, key, depth)) {
        this.#network.options.signal.throwIfAborted();
        const message = await server.query(qname, type, {}, true);
        if (!message) continue;
        if (message.rcode === Rcode.REFUSED || message.rcode === Rcode.SERVFAIL) {
          fallback = message;
          continue;
        }
        const kind = responseKind(message);
        // The parent holds the given delegation, whatever its servers really say below it.
        if (faking && !(kind === 'referral' && refersAbove(message, fake.zone))) {
          next = fakeStep(server);
          break;
        }
        if (kind === 'answer' || kind === 'nodata' || kind === 'nxdomain') {
          return { message, trace, canonical: finalName(message, qname, type) };
        }
        if (kind !== 'referral') continue;
        const zone = message.authority.find((rr) => rr.type === RRType.NS)!.name.toLowerCase();
        // Only downwards, towards the name, and never to a zone seen before.
        if (seen.has(zone.key()) || !qname.isSubdomainOf(zone) || zone.labelCount <= step.zone.labelCount) continue;
        seen.add(zone.key());
        this.#prefetch(zone, message);
        next = { zone, servers: this.#serversFromReferral(message, zone), from: server };
        break;
      }
      if (!next && faking) next = fakeStep();
      if (!next) return { ...(fallback && { message: fallback }), trace, canonical: qname };
      trace = [...trace, next];
    }
    return { trace, canonical: qname };
  }

  /**
   * What the zone under test's parent and delegation will be looked up with, started on the first
   * referral to each zone above it or to it: a zone above may be the parent, whose servers are
   * `zoneServers` (its NS RRset, then their addresses); the zone's own referral names the servers whose
   * addresses make its delegation; and the servers a referral names are, nearly always, those its
   * zone's NS RRset names. The same lookups, from this resolver's cache, only earlier; a guess that
   * turns out wrong costs its few questions. Failures are the later caller's.
   */
  #prefetch(zone: Name, referral: Message): void {
    const tested = this.#prefetchFor;
    if (!tested || zone.isRoot || !tested.isSubdomainOf(zone) || this.#prefetched.has(zone.key())) return;
    this.#prefetched.add(zone.key());
    const ignore = (): void => {};
    if (!zone.equals(tested)) this.zoneServers(zone).catch(ignore);
    for (const nsName of nsNames(referral, zone, ['authority'])) this.addressesOf(nsName).catch(ignore);
  }

  /** Servers with glue first (sorted by name, then address), then names without glue. */
  #serversFromReferral(message: Message, zone: Name): ServerCandidates {
    const withGlue: Nameserver[] = [];
    const without: Name[] = [];
    for (const nsName of nsNames(message, zone, ['authority'])) {
      const addresses = addressesIn(message, nsName, ['additional']);
      if (addresses.length === 0) without.push(nsName);
      for (const address of addresses) withGlue.push(this.#network.server(nsName, address));
    }
    return [...sortServers(withGlue), ...without];
  }

  // Last candidate first, as the reference walks them: which server is asked first decides which one
  // a dropped query makes silent for the rest of the run.
  async *#expand(candidates: ServerCandidates, key: string, depth: number): AsyncGenerator<Nameserver> {
    for (const candidate of [...candidates].reverse()) {
      if (!(candidate instanceof Name)) {
        if (this.#network.familyEnabled(candidate.family)) yield candidate;
        continue;
      }
      for (const address of await this.addressesOf(candidate, key, depth + 1)) {
        const server = this.#network.server(candidate, address);
        if (this.#network.familyEnabled(server.family)) yield server;
      }
    }
  }

  /** Servers of a zone as the zone itself lists them (its NS answer), with their addresses. */
  async zoneServers(zone: Name): Promise<Nameserver[]> {
    if (zone.isRoot) return this.rootServers;
    const resolution = await this.recurse(zone, RRType.NS);
    if (!resolution.message) return [];
    const names = nsNames(resolution.message, resolution.canonical, ['answer']);
    const servers = await Promise.all(
      names.map(async (nsName) => (await this.addressesOf(nsName)).map((address) => this.#network.server(nsName, address))),
    );
    return sortServers(servers.flat());
  }
}

function finalName(message: Message, qname: Name, type: number): Name {
  let current = qname;
  for (let hops = 0; hops < maxCnames && type !== RRType.CNAME; hops++) {
    const cname = message.answer.find((rr) => rr.type === RRType.CNAME && rr.name.equals(current));
    if (!cname || !recordIs(cname, RRType.CNAME)) break;
    current = cname.rdata.target;
  }
  return current;
}

/** The CNAME target to chase when the answer ends in a CNAME without the wanted records. */
function cnameTarget(message: Message, qname: Name, type: number): Name | undefined {
  const last = finalName(message, qname, type);
  if (last.equals(qname)) return undefined;
  const satisfied = message.answer.some((rr) => rr.type === type && rr.name.equals(last));
  return satisfied || message.rcode !== Rcode.NOERROR ? undefined : last;
}

/** Whether a referral goes to a zone strictly above `zone` (on the way to it). */
function refersAbove(message: Message, zone: Name): boolean {
  const to = message.authority.find((rr) => rr.type === RRType.NS)?.name;
  return to !== undefined && zone.isSubdomainOf(to) && to.labelCount < zone.labelCount;
}
