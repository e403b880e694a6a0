// DNSKEY public keys to node:crypto KeyObjects, per algorithm family.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { DnssecAlgorithm as Alg } from '../constants.ts';

export interface AlgorithmSpec {
  /** Digest name for crypto.verify; null where the algorithm hashes internally (EdDSA). */
  hash: string | null;
  importKey(publicKey: Uint8Array): KeyObject;
  /** ECDSA signatures are r|s (RFC 6605), not DER. */
  p1363?: boolean;
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

// RFC 3110 §2: exponent length (one byte, or zero and two bytes), exponent, modulus.
function rsaKey(key: Uint8Array): KeyObject {
  let at = 1;
  let expLength = key[0];
  if (expLength === 0) {
    expLength = (key[1] << 8) | key[2];
    at = 3;
  }
  const e = key.subarray(at, at + expLength);
  const n = key.subarray(at + expLength);
  if (e.length !== expLength || n.length === 0) throw new Error('RSA public key is truncated');
  return createPublicKey({ key: { kty: 'RSA', e: b64u(e), n: b64u(n) }, format: 'jwk' });
}

function ecKey(crv: string, size: number) {
  return (key: Uint8Array): KeyObject => {
    if (key.length !== size * 2) throw new Error(`${crv} public key must be ${size * 2} bytes`);
    return createPublicKey({ key: { kty: 'EC', crv, x: b64u(key.subarray(0, size)), y: b64u(key.subarray(size)) }, format: 'jwk' });
  };
}

function edKey(crv: string, size: number) {
  return (key: Uint8Array): KeyObject => {
    if (key.length !== size) throw new Error(`${crv} public key must be ${size} bytes`);
    return createPublicKey({ key: { kty: 'OKP', crv, x: b64u(key) }, format: 'jwk' });
  };
}

export const algorithms = new Map<number, AlgorithmSpec>([
  [Alg.RSASHA1, { hash: 'sha1', importKey: rsaKey }],
  [Alg.RSASHA1_NSEC3_SHA1, { hash: 'sha1', importKey: rsaKey }],
  [Alg.RSASHA256, { hash: 'sha256', importKey: rsaKey }],
  [Alg.RSASHA512, { hash: 'sha512', importKey: rsaKey }],
  [Alg.ECDSAP256SHA256, { hash: 'sha256', importKey: ecKey('P-256', 32), p1363: true }],
  [Alg.ECDSAP384SHA384, { hash: 'sha384', importKey: ecKey('P-384', 48), p1363: true }],
  [Alg.ED25519, { hash: null, importKey: edKey('Ed25519', 32) }],
  [Alg.ED448, { hash: null, importKey: edKey('Ed448', 57) }],
]);

export function isSupportedAlgorithm(algorithm: number): boolean {
  return algorithms.has(algorithm);
}
