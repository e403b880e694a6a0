// The service's lookup façade (get_host_by_name, get_data_from_parent_zone): a resolver and a zone model of its own, outside any test run.
// Its cache lives as long as the returned object, whose queries stop when its first lookup ends: make one per lookup.
import { ipFamily, Name } from '@app/dns';
import type { DsInput } from '../input.ts';
import { Network } from '../net/network.ts';
import { defaultProfile } from '../profile/profile.ts';
import { Zone } from '../zone/tested-zone.ts';
import { Resolver } from '../resolver/resolver.ts';
import { ianaRootHints, type RootHint } from '../resolver/root-hints.ts';
import { LookupFailure, watchRoot } from './root-watch.ts';

/** The longest a lookup may take. Silent root servers are known sooner: after one query's wait (8 s by the default profile). */
export const LOOKUP_BUDGET_MS = 10_000;

export interface ServiceLookups {
  hostAddresses(name: string): Promise<{ ipv4: string[]; ipv6: string[] }>;
  parentData(domain: string): Promise<{ ns_list: { ns: string; ip: string }[]; ds_list: DsInput[] }>;
}

export interface ServiceLookupOptions {
  rootHints?: readonly RootHint[];
  ipv4?: boolean;
  ipv6?: boolean;
  signal?: AbortSignal;
  budgetMs?: number;
}

/** Lookups that reject with a LookupFailure when the root is unreachable or intercepted, or when they run out of time. */
export function createServiceLookups(options: ServiceLookupOptions = {}): ServiceLookups {
  const profile = defaultProfile();
  const stop = new AbortController();
  const network = new Network({
    ipv4: options.ipv4 ?? profile.net.ipv4,
    ipv6: options.ipv6 ?? profile.net.ipv6,
    resolver: profile.resolver.defaults,
    signal: options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal,
  });
  const resolver = new Resolver(network, options.rootHints ?? ianaRootHints);
  const budgetMs = options.budgetMs ?? LOOKUP_BUDGET_MS;

  // The lookup, unless the root turns out unreachable or intercepted, or time runs out first: then
  // every query still in flight is dropped and the reason is the answer.
  const bounded = async <T>(work: () => Promise<T>): Promise<T> => {
    const verdict = watchRoot(
      resolver.rootServers.filter((server) => network.familyEnabled(server.family)),
      profile,
    );
    const rootFailed = verdict.then((found) => (found ? Promise.reject(found) : new Promise<never>(() => {})));
    const { promise: outOfTime, reject } = Promise.withResolvers<never>();
    const timer = setTimeout(() => reject(new LookupFailure(`The lookup did not finish within ${budgetMs / 1000} s`)), budgetMs);
    try {
      const value = await Promise.race([work(), rootFailed, outOfTime]);
      // An interceptor's answers come quickly and are not the parent's: the root's verdict decides.
      const found = await Promise.race([verdict, outOfTime]);
      if (found) throw found;
      return value;
    } finally {
      clearTimeout(timer);
      stop.abort();
    }
  };
  return {
    hostAddresses: (name) =>
      bounded(async () => {
        const addresses = await resolver.addressesOf(Name.fromString(name));
        return { ipv4: addresses.filter((a) => ipFamily(a) === 4), ipv6: addresses.filter((a) => ipFamily(a) === 6) };
      }),
    parentData: (domain) =>
      bounded(async () => {
        const zone = new Zone(Name.fromString(domain), resolver, network);
        const [servers, ds] = await Promise.all([zone.glue(), zone.dsFromParent()]);
        return { ns_list: servers.map((s) => ({ ns: s.nameText, ip: s.address })), ds_list: ds };
      }),
  };
}
