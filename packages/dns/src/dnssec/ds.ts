// DS digests (RFC 4034 §5.1.4; SHA-256 RFC 4509, SHA-384 RFC 6605).
import { createHash } from 'node:crypto';
import { DigestType, RRType } from '../constants.ts';
import type { Name } from '../name.ts';
import type { DnskeyData } from '../wire/rdata/dnssec-records.ts';
import { encodeRdataBytes } from '../wire/message.ts';

const hashes = new Map<number, string>([
  [DigestType.SHA1, 'sha1'],
  [DigestType.SHA256, 'sha256'],
  [DigestType.SHA384, 'sha384'],
]);

export function isSupportedDigestType(digestType: number): boolean {
  return hashes.has(digestType);
}

/** The DS digest of a DNSKEY, or undefined for digest types we do not implement (such as GOST). */
export function dsDigest(owner: Name, dnskey: DnskeyData, digestType: number): Uint8Array | undefined {
  const hash = hashes.get(digestType);
  if (!hash) return undefined;
  return createHash(hash).update(owner.toLowerCase().wire).update(encodeRdataBytes(RRType.DNSKEY, dnskey)).digest();
}
