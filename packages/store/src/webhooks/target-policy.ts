// Where webhooks may go. A webhook URL must not become a way into the operator's own network: loopback,
// private, link-local and other special ranges are refused unless the operator allowed them
// (STORE_WEBHOOK_ALLOWED_NETWORKS). Plain http is accepted only for hosts whose every address is loopback, for
// development. Both rules are decided on addresses (a name's resolved ones), never on how a host is spelt:
// `http://127.evil.example/` is a name like any other, and IPv6 spellings of IPv4 addresses are judged as those.
import { lookup as dnsLookup } from 'node:dns/promises';
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
function embeddedIpv4(address: string): { ipv4: string; mapped: boolean } | undefined {
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
  const address = raw.replace(/^\[|\]$/g, '');
  const family = familyOf(address);
  if (family === 'ipv4') return loopback.check(address, 'ipv4');
  if (family === undefined) return false;
  const embedded = embeddedIpv4(address);
  if (embedded?.mapped === true) return loopback.check(embedded.ipv4, 'ipv4');
  return loopback.check(address, 'ipv6');
}

export type Lookup = (hostname: string) => Promise<readonly string[]>;

const systemLookup: Lookup = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export class NetworkListError extends Error {
  override name = 'NetworkListError';
}

export interface TargetPolicy {
  /** Why this URL cannot be a webhook target, judged without resolving names; undefined when it may be. */
  urlProblem(text: string): string | undefined;
  /** urlProblem, and for plain http the addresses its host name resolves to now: each must be loopback. */
  resolvedUrlProblem(text: string): Promise<string | undefined>;
  /** Why a connection to this address is refused, or undefined when it is allowed. */
  addressProblem(address: string): string | undefined;
}

function familyOf(address: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

/** `allowedNetworks`: addresses or CIDRs (e.g. `127.0.0.0/8`, `::1`, `10.1.2.0/24`) the operator lets webhooks reach. */
export function targetPolicy(allowedNetworks: readonly string[] = [], lookup: Lookup = systemLookup): TargetPolicy {
  const allowed = new BlockList();
  for (const entry of allowedNetworks) {
    const [network = '', prefixText] = entry.trim().split('/');
    const family = familyOf(network);
    const prefix = prefixText === undefined ? undefined : Number(prefixText);
    if (family === undefined || (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= (family === 'ipv4' ? 32 : 128)))) {
      throw new NetworkListError(`"${entry}" is not an address or a CIDR network`);
    }
    if (prefix === undefined) allowed.addAddress(network, family);
    else allowed.addSubnet(network, prefix, family);
  }

  function addressProblem(raw: string): string | undefined {
    let address = raw.replace(/^\[|\]$/g, '');
    if (familyOf(address) === 'ipv6') {
      const embedded = embeddedIpv4(address);
      // A mapped address is the IPv4 address it carries (the operator's list applies to it as such). The other
      // spellings reach that address only through relays or not at all: a special one is never a target.
      if (embedded?.mapped === true) address = embedded.ipv4;
      else if (embedded !== undefined && special.check(embedded.ipv4, 'ipv4')) return `${raw} spells ${embedded.ipv4}, which is in a loopback, private or reserved range`;
    }
    const family = familyOf(address);
    if (family === undefined) return `${raw} is not an IP address`;
    if (!special.check(address, family) || allowed.check(address, family)) return undefined;
    return `${address} is in a loopback, private or reserved range not allowed for webhooks; the store's operator allows one by listing it in STORE_WEBHOOK_ALLOWED_NETWORKS (addresses or CIDR networks, comma-separated)`;
  }

  function urlProblem(text: string): string | undefined {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'must be an absolute URL';
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const literal = familyOf(host) !== undefined;
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (!literal || isLoopback(host)))) return 'must use https (plain http only on loopback)';
    if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
    // A name is judged by the addresses it resolves to: here for plain http, and at each delivery (see send.ts).
    return literal ? addressProblem(host) : undefined;
  }

  return {
    addressProblem,
    urlProblem,
    async resolvedUrlProblem(text) {
      const problem = urlProblem(text);
      if (problem !== undefined) return problem;
      const url = new URL(text);
      if (url.protocol !== 'http:' || familyOf(url.hostname.replace(/^\[|\]$/g, '')) !== undefined) return undefined;
      let addresses: readonly string[];
      try {
        addresses = await lookup(url.hostname);
      } catch {
        return `must use https (plain http only on loopback; ${url.hostname} does not resolve)`;
      }
      const outside = addresses.find((address) => !isLoopback(address));
      if (addresses.length === 0 || outside !== undefined) return `must use https (plain http only on loopback; ${url.hostname} resolves to ${outside ?? 'nothing'})`;
      return addresses.map(addressProblem).find((p) => p !== undefined);
    },
  };
}
