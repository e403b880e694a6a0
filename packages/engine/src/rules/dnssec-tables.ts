// The tables the reference engine 9.0 judges DNSSEC by: IANA's DNSSEC algorithm numbers (DNSSEC05's
// verdict, and the description and mnemonic findings name) and DS digest types (DNSSEC01's).
export type AlgorithmStatus = 'DEPRECATED' | 'RESERVED' | 'UNASSIGNED' | 'PRIVATE' | 'NOT_ZONE_SIGN' | 'NOT_RECOMMENDED' | 'OK';
export interface Algorithm {
  status: AlgorithmStatus;
  description: string;
  mnemonic: string;
}
const algorithmTable: Record<number, Algorithm> = {
  0: { status: 'NOT_ZONE_SIGN', description: 'Delete DS', mnemonic: 'DELETE' },
  1: { status: 'DEPRECATED', description: 'RSA/MD5', mnemonic: 'RSAMD5' },
  2: { status: 'NOT_ZONE_SIGN', description: 'Diffie-Hellman', mnemonic: 'DH' },
  3: { status: 'DEPRECATED', description: 'DSA/SHA1', mnemonic: 'DSA' },
  5: { status: 'DEPRECATED', description: 'RSA/SHA1', mnemonic: 'RSASHA1' },
  6: { status: 'DEPRECATED', description: 'DSA-NSEC3-SHA1', mnemonic: 'DSA-NSEC3-SHA1' },
  7: { status: 'DEPRECATED', description: 'RSASHA1-NSEC3-SHA1', mnemonic: 'RSASHA1-NSEC3-SHA1' },
  8: { status: 'OK', description: 'RSA/SHA-256', mnemonic: 'RSASHA256' },
  10: { status: 'NOT_RECOMMENDED', description: 'RSA/SHA-512', mnemonic: 'RSASHA512' },
  12: { status: 'DEPRECATED', description: 'GOST R 34.10-2001', mnemonic: 'ECC-GOST' },
  13: { status: 'OK', description: 'ECDSA Curve P-256 with SHA-256', mnemonic: 'ECDSAP256SHA256' },
  14: { status: 'OK', description: 'ECDSA Curve P-384 with SHA-384', mnemonic: 'ECDSAP384SHA384' },
  15: { status: 'OK', description: 'Ed25519', mnemonic: 'ED25519' },
  16: { status: 'OK', description: 'Ed448', mnemonic: 'ED448' },
  17: { status: 'OK', description: 'SM2 signing algo w SM3 hash algo', mnemonic: 'SM2SM3' },
  23: { status: 'OK', description: 'GOST R 34.10-2012', mnemonic: 'ECC-GOST12' },
  252: { status: 'NOT_ZONE_SIGN', description: 'Reserved for Indirect Keys', mnemonic: 'INDIRECT' },
  253: { status: 'PRIVATE', description: 'private algorithm', mnemonic: 'PRIVATEDNS' },
  254: { status: 'PRIVATE', description: 'private algorithm OID', mnemonic: 'PRIVATEOID' },
};
const unassignedAlgorithm: Algorithm = { status: 'UNASSIGNED', description: 'Unassigned', mnemonic: 'UNASSIGNED' };
const reservedAlgorithm: Algorithm = { status: 'RESERVED', description: 'Reserved', mnemonic: 'RESERVED' };
export function algorithm(number: number): Algorithm {
  return (
    algorithmTable[number] ?? ((number >= 18 && number <= 22) || (number >= 24 && number <= 122) ? unassignedAlgorithm : reservedAlgorithm)
  );
}
export const mnemonic = (number: number): string => algorithm(number).mnemonic;

/** A DS digest type's name in IANA's registry. */
export function digestName(number: number): string {
  const named: Record<number, string> = {
    0: 'Reserved',
    1: 'SHA-1',
    2: 'SHA-256',
    3: 'GOST R 34.11-94',
    4: 'SHA-384',
    5: 'GOST R 34.11-2012',
    6: 'SM3',
  };
  return (
    named[number] ??
    (number >= 128 && number <= 252 ? 'Reserved' : number === 253 || number === 254 ? 'Reserved for Private Use' : 'Unassigned')
  );
}
/** DNSSEC01's tag for a DS digest type. */
export function digestTag(number: number): string {
  if (number === 0) return 'DS01_DS_ALGO_NOT_DS';
  if (number === 1 || number === 3) return 'DS01_DS_ALGO_DEPRECATED';
  if (number <= 6) return 'DS01_DS_ALGO_OK';
  if (number >= 128 && number <= 252) return 'DS01_DS_ALGO_RESERVED';
  return number === 253 || number === 254 ? 'DS01_DS_ALGO_PRIVATE' : 'DS01_DS_ALGO_UNASSIGNED';
}
export const digestTags = [
  'DS01_DS_ALGO_DEPRECATED',
  'DS01_DS_ALGO_RESERVED',
  'DS01_DS_ALGO_UNASSIGNED',
  'DS01_DS_ALGO_PRIVATE',
  'DS01_DS_ALGO_NOT_DS',
  'DS01_DS_ALGO_OK',
];

/** DNSSEC05's verdicts, in the order its findings are laid out. */
export const algorithmStatuses: readonly AlgorithmStatus[] = [
  'DEPRECATED',
  'RESERVED',
  'UNASSIGNED',
  'NOT_RECOMMENDED',
  'PRIVATE',
  'NOT_ZONE_SIGN',
  'OK',
];
