// IP address text <-> bytes for A and AAAA rdata. IPv6 text follows RFC 5952 (lower case, "::").
import { isIPv4, isIPv6 } from 'node:net';
import { DnsEncodeError } from './errors.ts';

export function ipv4ToString(b: Uint8Array): string {
  return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
}

export function ipv4ToBytes(text: string): Uint8Array {
  if (!isIPv4(text)) throw new DnsEncodeError(`not an IPv4 address: ${text}`);
  return Uint8Array.from(text.split('.').map(Number));
}

export function ipv6ToString(b: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i] << 8) | b[i + 1]);
  // The longest run of two or more zero groups becomes "::" (first one on a tie).
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function ipv6ToBytes(text: string): Uint8Array {
  if (!isIPv6(text)) throw new DnsEncodeError(`not an IPv6 address: ${text}`);
  // An embedded IPv4 tail ("::ffff:192.0.2.1") becomes two hex groups first.
  const plain = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`);
  const [head = '', rest] = plain.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  });
  return out;
}
