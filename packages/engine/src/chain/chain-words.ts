// The words a chain picture puts on what the DNS data says: a key's part and size, how an RRset is signed, the
// root's heading. The one source for the engine's SVG and the service's Chain view, so that both name the same
// chain alike: the service serves this very file to browsers, so it imports nothing and keeps to syntax Node can
// strip of its types.

export type KeyRole = 'KSK' | 'ZSK' | 'not a zone key';

/** KSK with the SEP bit, ZSK without it; not a zone key without the Zone Key bit (RFC 4034, 2.1.1). */
export function keyRole(flags: number): KeyRole {
  if (!(flags & 0x0100)) return 'not a zone key';
  return flags & 0x0001 ? 'KSK' : 'ZSK';
}

/** The REVOKE bit (RFC 5011). */
export const isRevoked = (flags: number): boolean => (flags & 0x0080) !== 0;

/**
 * A key's size as its algorithm names it, from DNSViz's key_length (the RSA modulus, else the key's bits): an
 * ECDSA or GOST key holds a point's two coordinates, so P-256 is 256 bits, not 512; an Ed448 key is 57 bytes
 * for a 448-bit curve.
 */
export function keyBits(algorithm: number, keyLength: number): number {
  if (algorithm === 12 || algorithm === 13 || algorithm === 14) return keyLength / 2;
  if (algorithm === 16) return 448;
  return keyLength;
}

/** An RRset's signatures in a word: "signed" when all are VALID, else "RRSIG" and the other statuses; "no RRSIG" without any. */
export function signedWord(statuses: readonly string[]): string {
  if (statuses.length === 0) return 'no RRSIG';
  const bad = [...new Set(statuses.filter((status) => status !== 'VALID'))];
  return bad.length === 0 ? 'signed' : `RRSIG ${bad.join(', ')}`;
}

/** The root zone's heading, with the word for "root" in the reader's language. */
export const rootHeading = (rootWord = 'root'): string => `. (${rootWord})`;
