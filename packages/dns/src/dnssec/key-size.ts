// RSA key sizes as DNSSEC tools report them (ldns and the reference engine): the modulus length in
// octets times eight (RFC 3110 §2 key layout).
import { DnssecAlgorithm as Alg } from '../constants.ts';
import type { DnskeyData } from '../wire/rdata/dnssec-records.ts';

const rsaAlgorithms = new Set<number>([Alg.RSAMD5, Alg.RSASHA1, Alg.RSASHA1_NSEC3_SHA1, Alg.RSASHA256, Alg.RSASHA512]);

export function isRsaAlgorithm(algorithm: number): boolean {
  return rsaAlgorithms.has(algorithm);
}

/** Bits of an RSA DNSKEY's modulus; undefined for other algorithms, 0 for a key too short to hold one. */
export function rsaKeySize(dnskey: DnskeyData): number | undefined {
  if (!isRsaAlgorithm(dnskey.algorithm)) return undefined;
  const key = dnskey.publicKey;
  if (key.length === 0) return 0;
  const [header, exponent] = key[0] === 0 ? [3, key.length >= 3 ? (key[1] << 8) | key[2] : key.length] : [1, key[0]];
  return Math.max(0, key.length - header - exponent) * 8;
}
