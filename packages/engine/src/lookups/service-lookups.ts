// The service's lookup façade (get_host_by_name, get_data_from_parent_zone): a resolver and a zone model of its own, outside any test run.
// Its cache lives as long as the returned object: make one per request.
import { ipFamily, Name } from '@app/dns';
import type { DsInput } from '../input.ts';
import { Network } from '../net/network.ts';
import { defaultProfile } from '../profile/profile.ts';
import { Zone } from '../zone/tested-zone.ts';
import { Resolver } from '../resolver/resolver.ts';
import { ianaRootHints, type RootHint } from '../resolver/root-hints.ts';

export interface ServiceLookups {
  hostAddresses(name: string): Promise<{ ipv4: string[]; ipv6: string[] }>;
  parentData(domain: string): Promise<{ ns_list: { ns: string; ip: string }[]; ds_list: DsInput[] }>;
}

export function createServiceLookups(options: { rootHints?: readonly RootHint[]; ipv4?: boolean; ipv6?: boolean; signal?: AbortSignal } = {}): ServiceLookups {
  const profile = defaultProfile();
  const network = new Network({
    ipv4: options.ipv4 ?? profile.net.ipv4,
    ipv6: options.ipv6 ?? profile.net.ipv6,
    resolver: profile.resolver.defaults,
    signal: options.signal ?? new AbortController().signal,
  });
  const resolver = new Resolver(network, options.rootHints ?? ianaRootHints);
  return {
    async hostAddresses(name) {
      const addresses = await resolver.addressesOf(Name.fromString(name));
      return { ipv4: addresses.filter((a) => ipFamily(a) === 4), ipv6: addresses.filter((a) => ipFamily(a) === 6) };
    },
    async parentData(domain) {
      const zone = new Zone(Name.fromString(domain), resolver, network);
      const [servers, ds] = await Promise.all([zone.glue(), zone.dsFromParent()]);
      return { ns_list: servers.map((s) => ({ ns: s.nameText, ip: s.address })), ds_list: ds };
    },
  };
}
