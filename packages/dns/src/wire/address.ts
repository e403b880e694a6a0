// IP address text <-> bytes for A and AAAA rdata. IPv6 text follows RFC 5952 (lower case, "::").
import { DnsEncodeError } from './errors.ts';

export function ipv4ToString(b: Uint8Array): string {
  return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
}

/** Dotted quad to bytes, by hand: this runs for every A record the encoder writes. */
export function ipv4ToBytes(text: string): Uint8Array {
  const bytes = parseIpv4(text);
  if (!bytes) throw new DnsEncodeError(`not an IPv4 address: ${text}`);
  return bytes;
}

/** Four decimal octets without leading zeros (as node:net's isIPv4 has it), else undefined. */
function parseIpv4(text: string): Uint8Array | undefined {
  const out = new Uint8Array(4);
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || part > 3) return undefined;
      out[part++] = value;
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39 && digits < 3 && !(digits > 0 && value === 0)) {
      value = value * 10 + (c - 0x30);
      digits++;
      if (value > 255) return undefined;
    } else {
      return undefined;
    }
  }
  return part === 4 ? out : undefined;
}

export function ipv6ToString(b: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i] << 8) | b[i + 1]);
  // The longest run of two or more zero groups becomes "::" (first one on a tie).
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
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
  let bytes = ipv6Cache.get(text);
  if (bytes) return bytes;
  bytes = parseIpv6(text);
  if (!bytes) throw new DnsEncodeError(`not an IPv6 address: ${text}`);
  if (ipv6Cache.size >= 4096) ipv6Cache.clear();
  ipv6Cache.set(text, bytes);
  return bytes;
}

/**
 * 4 or 6 for IPv4 or IPv6 address text, else 0: node:net's isIP without its regular expressions (the
 * IPv6 one costs 3 ms to compile, in a run of 100 ms) and without IPv6 zone indexes ("%eth0"), which
 * no DNS server address has.
 */
export function ipFamily(text: string): 0 | 4 | 6 {
  const bytes = ipBytes(text);
  return bytes === undefined ? 0 : bytes.length === 4 ? 4 : 6;
}

/** The address's bytes (4 or 16), or undefined when the text is no address. */
export function ipBytes(text: string): Uint8Array | undefined {
  return text.includes(':') ? parseIpv6(text) : parseIpv4(text);
}

/** Whether two address texts name the same address, whatever their IPv6 form (case, "::"). */
export function sameIpAddress(a: string, b: string): boolean {
  if (a === b) return true;
  const x = ipBytes(a);
  const y = ipBytes(b);
  return x !== undefined && y !== undefined && x.length === y.length && x.every((byte, i) => byte === y[i]);
}

/** RFC 4291 section 2.2 text: up to eight hex groups, one "::", an IPv4 tail in the last two groups. */
function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groups(halves[0] ?? '', halves.length === 1);
  const tail = halves.length === 2 ? groups(halves[1] ?? '', true) : [];
  if (!head || !tail) return undefined;
  // Without "::" the groups must be all eight; with it, "::" stands for at least one.
  if (halves.length === 1 ? head.length !== 8 : head.length + tail.length > 7) return undefined;
  const out = new Uint8Array(16);
  const place = (values: number[], from: number): void =>
    values.forEach((v, i) => {
      out[(from + i) * 2] = v >> 8;
      out[(from + i) * 2 + 1] = v & 0xff;
    });
  place(head, 0);
  place(tail, 8 - tail.length);
  return out;
}

/** Colon-separated hex groups of 1 to 4 digits; the last may be an IPv4 address (two groups). */
function groups(part: string, ipv4Tail: boolean): number[] | undefined {
  if (part === '') return [];
  const pieces = part.split(':');
  const values: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] ?? '';
    if (ipv4Tail && i === pieces.length - 1 && piece.includes('.')) {
      const v4 = parseIpv4(piece);
      if (!v4) return undefined;
      values.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      continue;
    }
    if (piece.length < 1 || piece.length > 4) return undefined;
    let value = 0;
    for (let j = 0; j < piece.length; j++) {
      const digit = hexDigit(piece.charCodeAt(j));
      if (digit < 0) return undefined;
      value = value * 16 + digit;
    }
    values.push(value);
  }
  return values;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}
