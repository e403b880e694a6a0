// RRSIG verification (RFC 4035 §5.3) with a reason for every failure.
import { verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { RRType } from '../constants.ts';
import { recordIs, type RecordInput, type ResourceRecord } from '../wire/message.ts';
import type { DnskeyData, RrsigData } from '../wire/rdata/dnssec-records.ts';
import { signedData } from './canonical.ts';
import { keyTag } from './key-tag.ts';
import { algorithms, type AlgorithmSpec } from './public-key.ts';

export type VerifyFailure =
  | 'unsupported-algorithm'
  | 'algorithm-mismatch'
  | 'key-tag-mismatch'
  | 'not-zone-key'
  | 'signer-mismatch'
  | 'rrset-mismatch'
  | 'labels-mismatch'
  | 'expired'
  | 'not-yet-valid'
  | 'bad-key'
  | 'bad-signature';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure; detail: string };

const ZONE_KEY = 0x0100;

function fail(reason: VerifyFailure, detail: string): VerifyResult {
  return { ok: false, reason, detail };
}

/** RFC 1982 serial arithmetic on 32-bit times: is a before b? */
function before(a: number, b: number): boolean {
  return a !== b && (b - a) >>> 0 < 0x80000000;
}

type RecordOf<D> = Omit<RecordInput, 'rdata'> & { rdata: D };

/**
 * Checks that `rrsig` over `rrset` was made by `dnskey` and is valid at `now` (a Date, or seconds
 * since the epoch). Structural faults are reported before the time window, which comes before
 * the cryptographic check.
 */
export function verifyRrsig(
  rrset: readonly RecordInput[],
  rrsig: RecordOf<RrsigData>,
  dnskey: RecordOf<DnskeyData>,
  now: Date | number = new Date(),
): VerifyResult {
  const sig = rrsig.rdata;
  const key = dnskey.rdata;
  const spec = algorithms.get(sig.algorithm);
  if (!spec) return fail('unsupported-algorithm', `algorithm ${sig.algorithm} is not supported`);
  if (key.algorithm !== sig.algorithm)
    return fail('algorithm-mismatch', `DNSKEY algorithm ${key.algorithm}, RRSIG algorithm ${sig.algorithm}`);
  const tag = keyTag(key);
  if (tag !== sig.keyTag) return fail('key-tag-mismatch', `DNSKEY key tag ${tag}, RRSIG key tag ${sig.keyTag}`);
  if (!(key.flags & ZONE_KEY) || key.protocol !== 3) return fail('not-zone-key', 'the DNSKEY is not a zone key (flags bit 7, protocol 3)');
  if (!sig.signerName.equals(dnskey.name))
    return fail('signer-mismatch', `signer ${sig.signerName.toString()} is not the DNSKEY owner ${dnskey.name.toString()}`);
  const first = rrset[0];
  if (!first) return fail('rrset-mismatch', 'the RRset is empty');
  if (
    rrset.some((rr) => rr.type !== sig.typeCovered || rr.class !== first.class || !rr.name.equals(first.name) || rr.class !== rrsig.class)
  ) {
    return fail('rrset-mismatch', 'the records do not form one RRset of the covered type');
  }
  if (!first.name.equals(rrsig.name)) return fail('rrset-mismatch', 'the RRSIG owner differs from the RRset owner');
  if (!first.name.isSubdomainOf(sig.signerName)) return fail('signer-mismatch', 'the RRset lies outside the signer zone');
  if (sig.labels > first.name.labelCount)
    return fail('labels-mismatch', `RRSIG labels ${sig.labels} exceed the owner's ${first.name.labelCount}`);
  const t = (typeof now === 'number' ? now : Math.floor(now.getTime() / 1000)) >>> 0;
  if (before(sig.expiration, t)) return fail('expired', `expired at ${sig.expiration}`);
  if (before(t, sig.inception)) return fail('not-yet-valid', `valid from ${sig.inception}`);
  let publicKey;
  try {
    publicKey = importedKey(sig.algorithm, spec, key.publicKey);
  } catch (error) {
    return fail('bad-key', `the public key cannot be used: ${(error as Error).message}`);
  }
  const data = signedData(rrset, sig);
  let good = false;
  try {
    good = cryptoVerify(spec.hash, data, spec.p1363 ? { key: publicKey, dsaEncoding: 'ieee-p1363' } : publicKey, sig.signature);
  } catch {
    good = false;
  }
  return good ? { ok: true } : fail('bad-signature', 'the signature does not match the data');
}

// A zone's few keys sign many RRsets, each seen from several servers: importing a key once, not per signature,
// saves most of what making a KeyObject costs (a JWK parsed by OpenSSL). Bounded, as a long-lived service sees
// many zones.
const imported = new Map<string, KeyObject>();
const IMPORTED_MAX = 512;

function importedKey(algorithm: number, spec: AlgorithmSpec, publicKey: Uint8Array): KeyObject {
  const id = `${algorithm} ${Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('latin1')}`;
  let key = imported.get(id);
  if (key === undefined) {
    key = spec.importKey(publicKey);
    if (imported.size >= IMPORTED_MAX) imported.clear();
    imported.set(id, key);
  }
  return key;
}

/** The RRSIG records among `records` that cover `type`, typed. */
export function rrsigsCovering(records: readonly ResourceRecord[], type: number): ResourceRecord<RrsigData>[] {
  return records.filter((rr): rr is ResourceRecord<RrsigData> => recordIs(rr, RRType.RRSIG) && rr.rdata.typeCovered === type);
}
