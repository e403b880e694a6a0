// Reverse-lookup names (in-addr.arpa / ip6.arpa) for lab addresses, so reverse zones can hold PTRs.
import { isIPv4 } from 'node:net';

function expandIpv6(address: string): string {
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = address.includes('::') ? [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)] : groups(head);
  return all.map((g) => g.padStart(4, '0')).join('');
}

export function reverseName(address: string): string {
  if (isIPv4(address)) return `${address.split('.').reverse().join('.')}.in-addr.arpa.`;
  return `${[...expandIpv6(address)].reverse().join('.')}.ip6.arpa.`;
}
