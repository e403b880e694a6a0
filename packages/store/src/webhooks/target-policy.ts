// Where webhooks may go. A webhook URL must not become a way into the operator's own network: loopback,
// private, link-local and other special ranges are refused unless the operator allowed them
// (STORE_WEBHOOK_ALLOWED_NETWORKS). Plain http is accepted only for loopback hosts, for development.
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

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export class NetworkListError extends Error {
  override name = 'NetworkListError';
}

export interface TargetPolicy {
  /** Why this URL cannot be a webhook target, or undefined when it may be. */
  urlProblem(text: string): string | undefined;
  /** Why a connection to this address is refused, or undefined when it is allowed. */
  addressProblem(address: string): string | undefined;
}

function familyOf(address: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

/** `allowedNetworks`: addresses or CIDRs (e.g. `127.0.0.0/8`, `::1`, `10.1.2.0/24`) the operator lets webhooks reach. */
export function targetPolicy(allowedNetworks: readonly string[] = []): TargetPolicy {
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
    // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
    const address = raw.replace(/^\[|\]$/g, '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
    const family = familyOf(address);
    if (family === undefined) return `${raw} is not an IP address`;
    if (!special.check(address, family) || allowed.check(address, family)) return undefined;
    return `${address} is in a loopback, private or reserved range not allowed for webhooks; the store's operator allows one by listing it in STORE_WEBHOOK_ALLOWED_NETWORKS (addresses or CIDR networks, comma-separated)`;
  }

  return {
    addressProblem,
    urlProblem(text) {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return 'must be an absolute URL';
      }
      const loopback = LOOPBACK_NAMES.has(url.hostname) || url.hostname.startsWith('127.');
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return 'must use https (plain http only on loopback)';
      if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
      // A name is judged by the addresses it resolves to, at each delivery (see send.ts).
      const host = url.hostname.replace(/^\[|\]$/g, '');
      return familyOf(host) === undefined ? undefined : addressProblem(host);
    },
  };
}
