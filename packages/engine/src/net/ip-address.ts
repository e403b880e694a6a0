// IP address helpers the tests need: reverse-lookup names, prefixes in the reference's short form,
// and prefix membership.
import { ipBytes, ipFamily, Name } from '@app/dns';

/** The 32 hex nibbles of an IPv6 address, most significant first. */
export function ipv6Nibbles(address: string): string[] {
  const bytes = ipBytes(address);
  if (bytes?.length !== 16) throw new Error(`not an IPv6 address: ${address}`);
  return [...bytes].flatMap((byte) => [(byte >> 4).toString(16), (byte & 0xf).toString(16)]);
}

/** The in-addr.arpa or ip6.arpa name of an address. */
export function reverseName(address: string): Name {
  const labels =
    ipFamily(address) === 4 ? [...address.split('.').reverse(), 'in-addr', 'arpa'] : [...ipv6Nibbles(address).reverse(), 'ip6', 'arpa'];
  return Name.fromString(`${labels.join('.')}.`);
}

/** A prefix as the reference prints it: IPv4 keeps only the octets the length covers ('192.0.2/24'). */
export function shortPrefix(cidr: string): string {
  const [address, length] = cidr.split('/');
  if (ipFamily(address) !== 4) return cidr;
  const octets = Math.max(1, Math.ceil(Number(length) / 8));
  return `${address.split('.').slice(0, octets).join('.')}/${length}`;
}

/** Membership of one prefix (CIDR text), for either family; an address of the other family is outside. */
export function prefixMatcher(cidr: string): (address: string) => boolean {
  const [network = '', length = ''] = cidr.split('/');
  const prefix = ipBytes(network);
  const bits = Number(length);
  if (!prefix || !Number.isInteger(bits) || bits < 0 || bits > prefix.length * 8) throw new Error(`not a prefix: ${cidr}`);
  return (address) => {
    const bytes = ipBytes(address);
    if (bytes?.length !== prefix.length) return false;
    const whole = bits >> 3;
    for (let i = 0; i < whole; i++) if (bytes[i] !== prefix[i]) return false;
    const rest = bits & 7;
    const mask = (0xff << (8 - rest)) & 0xff;
    return rest === 0 || (bytes[whole] & mask) === (prefix[whole] & mask);
  };
}
