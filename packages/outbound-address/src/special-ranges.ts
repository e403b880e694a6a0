// Which addresses are not the public Internet: loopback, private, link-local (the cloud metadata
// service), carrier-grade NAT, multicast and reserved ranges, and IPv6 spellings of IPv4 addresses
// judged as the address they carry.
import { BlockList, isIP } from 'node:net';

const SPECIAL_RANGES: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const special = new BlockList();
for (const [network, prefix, family] of SPECIAL_RANGES) special.addSubnet(network, prefix, family);

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export function familyOf(address: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

/** An address without the brackets a URL puts around IPv6. */
export const unbracketed = (raw: string) => raw.replace(/^\[|\]$/g, '');

/** The eight 16-bit groups of an IPv6 address, read from the WHATWG URL parser's canonical spelling. */
function ipv6Groups(address: string): number[] | undefined {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head = '', tail] = canonical.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : undefined;
}

const dotted = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 address an IPv6 address spells: mapped (::ffff:a.b.c.d), which the system connects to as that IPv4
 * address; IPv4-compatible (::a.b.c.d, deprecated), 6to4 (2002:AABB:CCDD::) and NAT64 (64:ff9b::a.b.c.d).
 */
export function embeddedIpv4(address: string): { ipv4: string; mapped: boolean } | undefined {
  const g = ipv6Groups(address);
  if (g === undefined) return undefined;
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = g;
  const zeros = (...parts: (number | undefined)[]) => parts.every((p) => p === 0);
  if (zeros(g0, g1, g2, g3, g4) && g5 === 0xffff) return { ipv4: dotted(g6, g7), mapped: true };
  if (zeros(g0, g1, g2, g3, g4, g5) && !(g6 === 0 && g7 <= 1)) return { ipv4: dotted(g6, g7), mapped: false };
  if (g0 === 0x2002) return { ipv4: dotted(g1 ?? 0, g2 ?? 0), mapped: false };
  if (g0 === 0x64 && g1 === 0xff9b && zeros(g2, g3, g4, g5)) return { ipv4: dotted(g6, g7), mapped: false };
  return undefined;
}

/** Whether the system reaches this address on the machine itself. */
export function isLoopback(raw: string): boolean {
  const address = unbracketed(raw);
  const family = familyOf(address);
  if (family === 'ipv4') return loopback.check(address, 'ipv4');
  if (family === undefined) return false;
  const embedded = embeddedIpv4(address);
  if (embedded?.mapped === true) return loopback.check(embedded.ipv4, 'ipv4');
  return loopback.check(address, 'ipv6');
}

export function isSpecial(address: string, family: 'ipv4' | 'ipv6'): boolean {
  return special.check(address, family);
}
