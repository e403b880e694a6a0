// The IANA IPv4 and IPv6 Special-Purpose Address Registries, as the reference engine 9.0.1 ships them
// (iana-ipv4-special-registry.csv and iana-ipv6-special-registry.csv, registry versions of 2025):
// https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/
// The first matching row wins, so the order is the registry's. Names and references are the
// registry's text; `reachable` is its "Globally Reachable" column (footnotes dropped, '' where the
// registry leaves it empty).
import { ipFamily } from '@app/dns';
import { prefixMatcher } from './ip-address.ts';

/** [prefix, name, reference, globally reachable] */
type Row = readonly [string, string, string, string];

const ipv4: readonly Row[] = [
  ['0.0.0.0/8', '"This network"', '[RFC791], Section 3.2', 'False'],
  ['0.0.0.0/32', '"This host on this network"', '[RFC1122], Section 3.2.1.3', 'False'],
  ['10.0.0.0/8', 'Private-Use', '[RFC1918]', 'False'],
  ['100.64.0.0/10', 'Shared Address Space', '[RFC6598]', 'False'],
  ['127.0.0.0/8', 'Loopback', '[RFC1122], Section 3.2.1.3', 'False'],
  ['169.254.0.0/16', 'Link Local', '[RFC3927]', 'False'],
  ['172.16.0.0/12', 'Private-Use', '[RFC1918]', 'False'],
  ['192.0.0.0/24', 'IETF Protocol Assignments', '[RFC6890], Section 2.1', 'False'],
  ['192.0.0.0/29', 'IPv4 Service Continuity Prefix', '[RFC7335]', 'False'],
  ['192.0.0.8/32', 'IPv4 dummy address', '[RFC7600]', 'False'],
  ['192.0.0.9/32', 'Port Control Protocol Anycast', '[RFC7723]', 'True'],
  ['192.0.0.10/32', 'Traversal Using Relays around NAT Anycast', '[RFC8155]', 'True'],
  // One registry row with two blocks.
  ['192.0.0.170/32', 'NAT64/DNS64 Discovery', '[RFC8880][RFC7050], Section 2.2', 'False'],
  ['192.0.0.171/32', 'NAT64/DNS64 Discovery', '[RFC8880][RFC7050], Section 2.2', 'False'],
  ['192.0.2.0/24', 'Documentation (TEST-NET-1)', '[RFC5737]', 'False'],
  ['192.31.196.0/24', 'AS112-v4', '[RFC7535]', 'True'],
  ['192.52.193.0/24', 'AMT', '[RFC7450]', 'True'],
  ['192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)', '[RFC7526]', ''],
  ['192.168.0.0/16', 'Private-Use', '[RFC1918]', 'False'],
  ['192.175.48.0/24', 'Direct Delegation AS112 Service', '[RFC7534]', 'True'],
  ['198.18.0.0/15', 'Benchmarking', '[RFC2544]', 'False'],
  ['198.51.100.0/24', 'Documentation (TEST-NET-2)', '[RFC5737]', 'False'],
  ['203.0.113.0/24', 'Documentation (TEST-NET-3)', '[RFC5737]', 'False'],
  ['240.0.0.0/4', 'Reserved', '[RFC1112], Section 4', 'False'],
  // The registry's reference cell spans two lines here.
  ['255.255.255.255/32', 'Limited Broadcast', '[RFC8190]\n        [RFC919], Section 7', 'False'],
];

const ipv6: readonly Row[] = [
  ['::1/128', 'Loopback Address', '[RFC4291]', 'False'],
  ['::/128', 'Unspecified Address', '[RFC4291]', 'False'],
  ['::ffff:0:0/96', 'IPv4-mapped Address', '[RFC4291]', 'False'],
  ['64:ff9b::/96', 'IPv4-IPv6 Translat.', '[RFC6052]', 'True'],
  ['64:ff9b:1::/48', 'IPv4-IPv6 Translat.', '[RFC8215]', 'False'],
  ['100::/64', 'Discard-Only Address Block', '[RFC6666]', 'False'],
  ['100:0:0:1::/64', 'Dummy IPv6 Prefix', '[RFC-ietf-mpls-p2mp-bfd-11]', 'False'],
  ['2001::/23', 'IETF Protocol Assignments', '[RFC2928]', 'False'],
  ['2001::/32', 'TEREDO', '[RFC4380]\n        [RFC8190]', 'N/A'],
  ['2001:1::1/128', 'Port Control Protocol Anycast', '[RFC7723]', 'True'],
  ['2001:1::2/128', 'Traversal Using Relays around NAT Anycast', '[RFC8155]', 'True'],
  ['2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast', '[RFC-ietf-dnssd-srp-25]', 'True'],
  ['2001:2::/48', 'Benchmarking', '[RFC5180][RFC Errata 1752]', 'False'],
  ['2001:3::/32', 'AMT', '[RFC7450]', 'True'],
  ['2001:4:112::/48', 'AS112-v6', '[RFC7535]', 'True'],
  ['2001:10::/28', 'Deprecated (previously ORCHID)', '[RFC4843]', ''],
  ['2001:20::/28', 'ORCHIDv2', '[RFC7343]', 'True'],
  ['2001:30::/28', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', '[RFC9374]', 'True'],
  ['2001:db8::/32', 'Documentation', '[RFC3849]', 'False'],
  ['2002::/16', '6to4', '[RFC3056]', 'N/A'],
  ['2620:4f:8000::/48', 'Direct Delegation AS112 Service', '[RFC7534]', 'True'],
  ['3fff::/20', 'Documentation', '[RFC9637]', 'False'],
  ['5f00::/16', 'Segment Routing (SRv6) SIDs', '[RFC9602]', 'False'],
  ['fc00::/7', 'Unique-Local', '[RFC4193]\n        [RFC8190]', 'False'],
  ['fe80::/10', 'Link-Local Unicast', '[RFC4291]', 'False'],
];

export interface SpecialPurposeBlock {
  prefix: string;
  name: string;
  reference: string;
}

const blocks = (rows: readonly Row[]) =>
  rows.map(([prefix, name, reference, reachable]) => ({ prefix, name, reference, reachable, contains: prefixMatcher(prefix) }));
const byFamily = { 4: blocks(ipv4), 6: blocks(ipv6) };

function rowOf(address: string) {
  const family = ipFamily(address);
  if (family !== 4 && family !== 6) return undefined;
  return byFamily[family].find((block) => block.contains(address));
}

/** The first registry block the address lies in, or undefined for an ordinary address. */
export function specialPurposeBlock(address: string): SpecialPurposeBlock | undefined {
  const found = rowOf(address);
  return found && { prefix: found.prefix, name: found.name, reference: found.reference };
}

export type AddressCategory = 'documentation' | 'local-use' | 'not-globally-reachable' | 'globally-reachable';

// Words in a row's name that make it a network's own (local) use, as the reference reads them.
const localUse = ['Private-Use', 'Loopback', 'Link Local', 'Link-Local', 'Unique-Local', 'Shared Address Space'];

/** How Address01 judges an address by the first row it lies in: by the row's name, else its reachability. */
export function addressCategory(address: string): AddressCategory {
  const row = rowOf(address);
  if (!row) return 'globally-reachable';
  if (row.name.includes('Documentation')) return 'documentation';
  if (localUse.some((word) => row.name.includes(word))) return 'local-use';
  return row.reachable.includes('True') ? 'globally-reachable' : 'not-globally-reachable';
}
