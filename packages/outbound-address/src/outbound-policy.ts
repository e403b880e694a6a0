// Whether a connection to an address is allowed: special ranges are refused unless the operator listed
// them. The address is what the system would connect to; a URL's host is judged by the addresses it
// resolves to (guardedLookup), never by how it is spelt, except that numeric hosts are addresses.
import { BlockList } from 'node:net';
import { embeddedIpv4, familyOf, isSpecial, unbracketed } from './special-ranges.ts';

export class NetworkListError extends Error {
  override name = 'NetworkListError';
}

export interface OutboundPolicy {
  /** Why a connection to this address is refused, or undefined when it is allowed. */
  addressProblem: (address: string) => string | undefined;
}

export interface PolicyOptions {
  /** Addresses or CIDRs (e.g. `127.0.0.0/8`, `::1`, `10.1.2.0/24`) the operator lets connections reach. */
  allowedNetworks?: readonly string[];
  /**
   * How a refusal ends, after "<address> is in a loopback, private or reserved range": what such an
   * address is not allowed for, and the setting that lists exceptions.
   */
  refusalEnd: string;
}

/** The operator's list as a BlockList; a NetworkListError names an entry that is not an address or CIDR. */
function networkList(entries: readonly string[]): BlockList {
  const allowed = new BlockList();
  for (const entry of entries) {
    const [network = '', prefixText] = entry.trim().split('/');
    const family = familyOf(network);
    const prefix = prefixText === undefined ? undefined : Number(prefixText);
    if (
      family === undefined ||
      (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= (family === 'ipv4' ? 32 : 128)))
    ) {
      throw new NetworkListError(`"${entry}" is not an address or a CIDR network`);
    }
    if (prefix === undefined) allowed.addAddress(network, family);
    else allowed.addSubnet(network, prefix, family);
  }
  return allowed;
}

export function outboundPolicy(options: PolicyOptions): OutboundPolicy {
  const allowed = networkList(options.allowedNetworks ?? []);
  return {
    addressProblem: (raw) => {
      let address = unbracketed(raw);
      if (familyOf(address) === 'ipv6') {
        const embedded = embeddedIpv4(address);
        // A mapped address is the IPv4 address it carries (the operator's list applies to it as such). The other
        // spellings reach that address only through relays or not at all: a special one is never a target.
        if (embedded?.mapped === true) address = embedded.ipv4;
        else if (embedded !== undefined && isSpecial(embedded.ipv4, 'ipv4'))
          return `${raw} spells ${embedded.ipv4}, which is in a loopback, private or reserved range`;
      }
      const family = familyOf(address);
      if (family === undefined) return `${raw} is not an IP address`;
      if (!isSpecial(address, family) || allowed.check(address, family)) return undefined;
      return `${address} is in a loopback, private or reserved range ${options.refusalEnd}`;
    },
  };
}

/**
 * Why a URL's host cannot be connected to, judged without resolving: a numeric host in any spelling the
 * URL parser reads as an address (decimal, octal, hex, short forms, IPv4-mapped IPv6), and `localhost`
 * names, which resolve to loopback by definition (RFC 6761). Other names are judged when connecting.
 */
export function hostProblem(policy: OutboundPolicy, url: URL): string | undefined {
  const host = unbracketed(url.hostname);
  if (familyOf(host) !== undefined) return policy.addressProblem(host);
  if (/(?:^|\.)localhost\.?$/i.test(host)) return policy.addressProblem('127.0.0.1') ?? policy.addressProblem('::1');
  return undefined;
}
