// IP address helpers the tests need: reverse-lookup names, prefixes in the reference's short form,
// and prefix membership.
import { BlockList, isIP } from 'node:net';
import { Name } from '@app/dns';

/** The 32 hex nibbles of an IPv6 address, most significant first. */
export function ipv6Nibbles(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // An IPv4 tail (::ffff:192.0.2.1) counts as two groups.
  const expand = (list: string[]): string[] =>
    list.flatMap((g) => {
      if (!g.includes('.')) return [g];
      const [a, b, c, d] = g.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  const l = expand(left);
  const r = expand(right);
  const all = [...l, ...Array<string>(8 - l.length - r.length).fill('0'), ...r];
  return all.flatMap((g) => g.padStart(4, '0').split(''));
}

/** The in-addr.arpa or ip6.arpa name of an address. */
export function reverseName(address: string): Name {
  const labels = isIP(address) === 4 ? [...address.split('.').reverse(), 'in-addr', 'arpa'] : [...ipv6Nibbles(address).reverse(), 'ip6', 'arpa'];
  return Name.fromString(`${labels.join('.')}.`);
}

/** A prefix as the reference prints it: IPv4 keeps only the octets the length covers ('192.0.2/24'). */
export function shortPrefix(cidr: string): string {
  const [address, length] = cidr.split('/');
  if (isIP(address) !== 4) return cidr;
  const octets = Math.max(1, Math.ceil(Number(length) / 8));
  return `${address.split('.').slice(0, octets).join('.')}/${length}`;
}

/** Membership of one prefix (CIDR text), for either family. */
export function prefixMatcher(cidr: string): (address: string) => boolean {
  const [network, length] = cidr.split('/');
  const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  list.addSubnet(network, Number(length), family);
  return (address) => {
    const own = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    return own === family && list.check(address, own);
  };
}
