// Base 32 with the extended hex alphabet (RFC 4648 §7), unpadded as NSEC3 uses it (RFC 5155 §3.3).
const alphabet = '0123456789abcdefghijklmnopqrstuv';

export function base32hexEncode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

/** Undefined when the text is not base32hex. */
export function base32hexDecode(text: string): Uint8Array | undefined {
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of text.toLowerCase()) {
    const v = alphabet.indexOf(ch);
    if (v < 0) return undefined;
    buffer = (buffer << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((buffer >> bits) & 0xff);
      buffer &= (1 << bits) - 1;
    }
  }
  return Uint8Array.from(out);
}
