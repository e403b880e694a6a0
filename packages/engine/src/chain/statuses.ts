// DNSViz's status words for DS records and RRSIGs (dnsviz/analysis/status.py, 0.11.2), judged with
// @app/dns's digests and signature checks. The rules are DNSViz's; the code is ours.
import {
  dsDigest,
  isSupportedAlgorithm,
  keyTag,
  verifyRrsig,
  type DnskeyData,
  type DsData,
  type Name,
  type RecordInput,
  type ResourceRecord,
  type RrsigData,
} from '@app/dns';

export type DsStatus =
  | 'VALID'
  | 'INDETERMINATE_NO_DNSKEY'
  | 'INDETERMINATE_MATCH_PRE_REVOKE'
  | 'INDETERMINATE_UNKNOWN_ALGORITHM'
  | 'ALGORITHM_IGNORED'
  | 'INVALID_DIGEST'
  | 'INVALID';
export type RrsigStatus =
  | 'VALID'
  | 'INDETERMINATE_NO_DNSKEY'
  | 'INDETERMINATE_MATCH_PRE_REVOKE'
  | 'INDETERMINATE_UNKNOWN_ALGORITHM'
  | 'ALGORITHM_IGNORED'
  | 'EXPIRED'
  | 'PREMATURE'
  | 'INVALID_SIG'
  | 'INVALID';

/** Algorithms DNSViz validates with (GOST 12 and ML-DSA only with library support, absent in Debian's build). */
export const supportedAlgorithms: ReadonlySet<number> = new Set([1, 3, 5, 6, 7, 8, 10, 13, 14, 15, 16]);
/** Digest types DNSViz computes (GOST 3 only with library support). */
export const supportedDigestTypes: ReadonlySet<number> = new Set([1, 2, 4]);
// RFC 8624 §3.1: algorithms a validator must not validate with.
const validationProhibited = new Set([1, 3, 6]);
const REVOKE = 0x0080;

export interface Problem {
  code: string;
  description: string;
}

/** Key tag with the REVOKE bit cleared, so a DS made before the key was revoked still finds it. */
export function keyTagWithoutRevoke(key: DnskeyData): number {
  return keyTag({ ...key, flags: key.flags & ~REVOKE });
}

/** Key length in bits the way DNSViz counts it: the RSA modulus, DSA from its T parameter, else the key bytes. */
export function keyLength(key: DnskeyData): number {
  const bytes = key.publicKey;
  if ([1, 5, 7, 8, 10].includes(key.algorithm)) {
    if (bytes.length < 1) return 0;
    let exponentLength = bytes[0];
    let offset = 1;
    if (exponentLength === 0) {
      if (bytes.length < 3) return 0;
      exponentLength = (bytes[1] << 8) | bytes[2];
      offset = 3;
    }
    const modulus = bytes.length - offset - exponentLength;
    return modulus <= 0 ? bytes.length * 8 : modulus * 8;
  }
  if (key.algorithm === 3 || key.algorithm === 6) return bytes.length < 1 ? 0 : (64 + bytes[0] * 8) * 8;
  return bytes.length * 8;
}

/** Whether a DS names this key: same algorithm, and its key tag with or without the REVOKE bit. */
export function dsNamesKey(ds: DsData, key: DnskeyData): boolean {
  return ds.algorithm === key.algorithm && (ds.keyTag === keyTag(key) || ds.keyTag === keyTagWithoutRevoke(key));
}

/** A DS judged against the key it names (or none): status, and DNSViz's error and warning codes. */
export function judgeDs(
  owner: Name,
  ds: DsData,
  key: DnskeyData | undefined,
  digestTypesInSet: ReadonlySet<number>,
): { status: DsStatus; errors: Problem[]; warnings: Problem[] } {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  let status: DsStatus = 'VALID';
  const set = (s: DsStatus): void => {
    if (status === 'VALID') status = s;
  };
  const digest = key && supportedDigestTypes.has(ds.digestType) ? dsDigest(owner, key, ds.digestType) : undefined;
  const digestValid = digest === undefined ? undefined : Buffer.from(digest).equals(Buffer.from(ds.digest));
  if (digestValid === undefined) {
    if (!key) set('INDETERMINATE_NO_DNSKEY');
    else {
      set('INDETERMINATE_UNKNOWN_ALGORITHM');
      warnings.push({ code: 'DIGEST_ALGORITHM_NOT_SUPPORTED', description: `DS digest type ${ds.digestType} is not supported here.` });
    }
  }
  if ([0, 1, 3].includes(ds.digestType))
    warnings.push({
      code: 'DIGEST_ALGORITHM_PROHIBITED',
      description: `DS digest type ${ds.digestType} must not be used (RFC 8624, Sec. 3.2).`,
    });
  if (key && key.flags & REVOKE) {
    if (keyTag(key) !== ds.keyTag) set('INDETERMINATE_MATCH_PRE_REVOKE');
    else {
      errors.push({ code: 'DNSKEY_REVOKED_DS', description: 'The DS names a revoked key.' });
      set('INVALID');
    }
  }
  if (digestValid === false && key && keyTag(key) === ds.keyTag) {
    set('INVALID_DIGEST');
    errors.push({ code: 'DIGEST_INVALID', description: 'The digest of the DS does not match the key it names (RFC 4035, Sec. 5.2).' });
  }
  // RFC 4509: a SHA-1 DS beside a SHA-256 one is ignored by validators.
  if (ds.digestType === 1 && digestTypesInSet.has(2)) {
    set('ALGORITHM_IGNORED');
    warnings.push({ code: 'DS_DIGEST_ALGORITHM_IGNORED', description: 'A SHA-1 DS is ignored beside a SHA-256 DS (RFC 4509).' });
  }
  return { status, errors, warnings };
}

/** An RRSIG over an RRset judged with one key of its signer (or none), at `now` (seconds since the epoch). */
export function judgeRrsig(
  rrset: readonly RecordInput[],
  rrsig: ResourceRecord<RrsigData>,
  key: ResourceRecord<DnskeyData> | undefined,
  zone: Name,
  now: number,
): { status: RrsigStatus; errors: Problem[] } {
  const sig = rrsig.rdata;
  const errors: Problem[] = [];
  let status: RrsigStatus = 'VALID';
  const set = (s: RrsigStatus): void => {
    if (status === 'VALID') status = s;
  };
  let signatureValid: boolean | undefined;
  if (key && supportedAlgorithms.has(key.rdata.algorithm) && isSupportedAlgorithm(key.rdata.algorithm)) {
    // Only the signature is checked here (at its own inception); the time window is judged below, as DNSViz does.
    const result = verifyRrsig(rrset, rrsig, key, sig.inception);
    if (result.ok) signatureValid = true;
    else if (['bad-signature', 'bad-key', 'not-zone-key', 'rrset-mismatch'].includes(result.reason)) signatureValid = false;
  }
  if (signatureValid === undefined || !supportedAlgorithms.has(sig.algorithm)) {
    if (!key) set('INDETERMINATE_NO_DNSKEY');
    else if (validationProhibited.has(key.rdata.algorithm)) set('ALGORITHM_IGNORED');
    else set('INDETERMINATE_UNKNOWN_ALGORITHM');
  }
  if (!sig.signerName.equals(zone)) {
    set('INVALID');
    errors.push({ code: 'SIGNER_NOT_ZONE', description: `The signer ${sig.signerName.toString()} is not the zone ${zone.toString()}.` });
  }
  const owner = rrset[0]?.name;
  if (owner && sig.labels > owner.labelCount) {
    set('INVALID');
    errors.push({ code: 'RRSIG_LABELS_EXCEED_RRSET_OWNER_LABELS', description: "The RRSIG labels field exceeds the owner name's labels." });
  }
  if (before(now, sig.inception)) {
    set('PREMATURE');
    errors.push({ code: 'INCEPTION_IN_FUTURE', description: `The signature is valid only from ${rrsigTime(sig.inception)}.` });
  } else if (!before(now, sig.expiration)) {
    set('EXPIRED');
    errors.push({ code: 'EXPIRATION_IN_PAST', description: `The signature expired at ${rrsigTime(sig.expiration)}.` });
  }
  if (signatureValid === false && key && supportedAlgorithms.has(key.rdata.algorithm) && keyTag(key.rdata) === sig.keyTag) {
    set('INVALID_SIG');
    errors.push({
      code: 'SIGNATURE_INVALID',
      description: 'The cryptographic signature does not verify with the key (RFC 4035, Sec. 5.3.3).',
    });
  }
  return { status, errors };
}

/** Serial-number order of 32-bit times (RFC 1982), as RRSIG times are compared. */
function before(a: number, b: number): boolean {
  return a !== b && (b - a) >>> 0 < 0x80000000;
}

/** An RRSIG time as DNSViz writes it ("2026-12-25 23:08:14 UTC"). */
export function rrsigTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
