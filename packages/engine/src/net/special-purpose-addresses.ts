// The IANA IPv4 and IPv6 Special-Purpose Address Registries, as the reference engine 4.6 ships them
// (iana-ipv4-special-registry.csv and iana-ipv6-special-registry.csv, registry versions of 2021):
// https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/
// Every row counts, globally reachable or not (as in the reference); the first matching row wins,
// so the order is the registry's. Names and references are the registry's text.
import { ipFamily } from '@app/dns';
import { prefixMatcher } from './ip-address.ts';

/** [prefix, name, reference] */
type Row = readonly [string, string, string];

const ipv4: readonly Row[] = [
  ['0.0.0.0/8', '"This host on this network"', '[RFC1122], Section 3.2.1.3'],
  ['10.0.0.0/8', 'Private-Use', '[RFC1918]'],
  ['100.64.0.0/10', 'Shared Address Space', '[RFC6598]'],
  ['127.0.0.0/8', 'Loopback', '[RFC1122], Section 3.2.1.3'],
  ['169.254.0.0/16', 'Link Local', '[RFC3927]'],
  ['172.16.0.0/12', 'Private-Use', '[RFC1918]'],
  ['192.0.0.0/24', 'IETF Protocol Assignments', '[RFC6890], Section 2.1'],
  ['192.0.0.0/29', 'IPv4 Service Continuity Prefix', '[RFC7335]'],
  ['192.0.0.8/32', 'IPv4 dummy address', '[RFC7600]'],
  ['192.0.0.9/32', 'Port Control Protocol Anycast', '[RFC7723]'],
  ['192.0.0.10/32', 'Traversal Using Relays around NAT Anycast', '[RFC8155]'],
  ['192.0.0.170/32', 'NAT64/DNS64 Discovery', '[RFC7050], Section 2.2'],
  ['192.0.0.171/32', 'NAT64/DNS64 Discovery', '[RFC7050], Section 2.2'],
  ['192.0.2.0/24', 'Documentation (TEST-NET-1)', '[RFC5737]'],
  ['192.31.196.0/24', 'AS112-v4', '[RFC7535]'],
  ['192.52.193.0/24', 'AMT', '[RFC7450]'],
  ['192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)', '[RFC7526]'],
  ['192.168.0.0/16', 'Private-Use', '[RFC1918]'],
  ['192.175.48.0/24', 'Direct Delegation AS112 Service', '[RFC7534]'],
  ['198.18.0.0/15', 'Benchmarking', '[RFC2544]'],
  ['198.51.100.0/24', 'Documentation (TEST-NET-2)', '[RFC5737]'],
  ['203.0.113.0/24', 'Documentation (TEST-NET-3)', '[RFC5737]'],
  ['240.0.0.0/4', 'Reserved', '[RFC1112], Section 4'],
  // The registry's reference cell spans two lines here.
  ['255.255.255.255/32', 'Limited Broadcast', '[RFC8190]\n        [RFC919], Section 7'],
];

const ipv6: readonly Row[] = [
  ['::1/128', 'Loopback Address', '[RFC4291]'],
  ['::/128', 'Unspecified Address', '[RFC4291]'],
  ['::ffff:0:0/96', 'IPv4-mapped Address', '[RFC4291]'],
  ['64:ff9b::/96', 'IPv4-IPv6 Translat.', '[RFC6052]'],
  ['64:ff9b:1::/48', 'IPv4-IPv6 Translat.', '[RFC8215]'],
  ['100::/64', 'Discard-Only Address Block', '[RFC6666]'],
  ['2001::/23', 'IETF Protocol Assignments', '[RFC2928]'],
  ['2001::/32', 'TEREDO', '[RFC4380]\n        [RFC8190]'],
  ['2001:1::1/128', 'Port Control Protocol Anycast', '[RFC7723]'],
  ['2001:1::2/128', 'Traversal Using Relays around NAT Anycast', '[RFC8155]'],
  ['2001:2::/48', 'Benchmarking', '[RFC5180][RFC Errata 1752]'],
  ['2001:3::/32', 'AMT', '[RFC7450]'],
  ['2001:4:112::/48', 'AS112-v6', '[RFC7535]'],
  ['2001:5::/32', 'EID Space for LISP (Managed by RIPE NCC)', '[RFC7954]'],
  ['2001:10::/28', 'Deprecated (previously ORCHID)', '[RFC4843]'],
  ['2001:20::/28', 'ORCHIDv2', '[RFC7343]'],
  ['2001:db8::/32', 'Documentation', '[RFC3849]'],
  ['2002::/16', '6to4', '[RFC3056]'],
  ['2620:4f:8000::/48', 'Direct Delegation AS112 Service', '[RFC7534]'],
  ['fc00::/7', 'Unique-Local', '[RFC4193]\n        [RFC8190]'],
  ['fe80::/10', 'Link-Local Unicast', '[RFC4291]'],
];

export interface SpecialPurposeBlock {
  prefix: string;
  name: string;
  reference: string;
}

const blocks = (rows: readonly Row[]) => rows.map(([prefix, name, reference]) => ({ prefix, name, reference, contains: prefixMatcher(prefix) }));
const byFamily = { 4: blocks(ipv4), 6: blocks(ipv6) };

/** The first registry block the address lies in, or undefined for an ordinary address. */
export function specialPurposeBlock(address: string): SpecialPurposeBlock | undefined {
  const family = ipFamily(address);
  if (family !== 4 && family !== 6) return undefined;
  const found = byFamily[family].find((block) => block.contains(address));
  return found && { prefix: found.prefix, name: found.name, reference: found.reference };
}
