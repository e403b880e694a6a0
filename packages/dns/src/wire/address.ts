// IP address text <-> bytes for A and AAAA rdata. IPv6 text follows RFC 5952 (lower case, "::").
import { isIPv6 } from 'node:net';
import { DnsEncodeError } from './errors.ts';

export function ipv4ToString(b: Uint8Array): string {
  return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
}

/** Dotted quad to bytes, by hand: this runs for every A record the encoder writes. */
export function ipv4ToBytes(text: string): Uint8Array {
  const out = new Uint8Array(4);
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || part > 3) throw new DnsEncodeError(`not an IPv4 address: ${text}`);
      out[part++] = value;
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39 && digits < 3 && !(digits > 0 && value === 0)) {
      value = value * 10 + (c - 0x30);
      digits++;
      if (value > 255) throw new DnsEncodeError(`not an IPv4 address: ${text}`);
    } else {
      throw new DnsEncodeError(`not an IPv4 address: ${text}`);
    }
  }
  if (part !== 4) throw new DnsEncodeError(`not an IPv4 address: ${text}`);
  return out;
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

// Encoders meet the same few addresses again and again; parsing IPv6 text is not cheap.
const ipv6Cache = new Map<string, Uint8Array>();

export function ipv6ToBytes(text: string): Uint8Array {
  const cached = ipv6Cache.get(text);
  if (cached) return cached;
  const bytes = parseIpv6(text);
  if (ipv6Cache.size >= 4096) ipv6Cache.clear();
  ipv6Cache.set(text, bytes);
  return bytes;
}

function parseIpv6(text: string): Uint8Array {
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
