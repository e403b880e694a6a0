// The chain of trust into one zone: a DS at the parent names a DNSKEY by key tag and digest, that key
// signs the DNSKEY RRset, and a key of that set signs the RRset asked for. Each step says why it fails.
import type { Name } from '../name.ts';
import { RRType } from '../constants.ts';
import { recordIs, type RecordInput, type ResourceRecord } from '../wire/message.ts';
import type { DnskeyData, DsData, RrsigData } from '../wire/rdata/dnssec-records.ts';
import { compareBytes } from './canonical.ts';
import { dsDigest } from './ds.ts';
import { keyTag } from './key-tag.ts';
import { verifyRrsig, type VerifyResult } from './verify.ts';

type RecordOf<D> = Omit<RecordInput, 'rdata'> & { rdata: D };
export type DnskeyRecord = RecordOf<DnskeyData>;
export type RrsigRecord = RecordOf<RrsigData>;

const ZONE_KEY = 0x0100;
const SEP = 0x0001;

export interface DsCheck {
  ds: DsData;
  /** The DNSKEY the DS names: the one whose digest matches, else the first with its key tag. */
  key?: DnskeyRecord;
  /** 'unsupported' when we cannot compute the DS's digest type (the key is then taken on its tag). */
  digest: 'match' | 'mismatch' | 'unsupported' | 'no-key';
  zoneKey: boolean;
  sep: boolean;
  /** Each RRSIG over the DNSKEY RRset made with the key's tag, verified against the keys with that tag. */
  signatures: { rrsig: RrsigRecord; result: VerifyResult }[];
}

/** Verifies `rrsig` over `rrset` with each key of `keys` whose tag it names; the first success wins. */
export function verifyWithKeys(
  rrset: readonly RecordInput[],
  rrsig: RrsigRecord,
  keys: readonly DnskeyRecord[],
  now?: Date | number,
): VerifyResult {
  const candidates = keys.filter((key) => keyTag(key.rdata) === rrsig.rdata.keyTag && key.rdata.algorithm === rrsig.rdata.algorithm);
  if (candidates.length === 0)
    return {
      ok: false,
      reason: 'key-tag-mismatch',
      detail: `no DNSKEY with key tag ${rrsig.rdata.keyTag} and algorithm ${rrsig.rdata.algorithm}`,
    };
  let last: VerifyResult = { ok: false, reason: 'bad-signature', detail: 'no key verified the signature' };
  for (const key of candidates) {
    last = verifyRrsig(rrset, rrsig, key, now);
    if (last.ok) return last;
  }
  return last;
}

/** Step one and two for one DS: which DNSKEY it names, whether that key may be a trust anchor, and whether it signs the DNSKEY set. */
export function checkDs(
  owner: Name,
  ds: DsData,
  dnskeys: readonly DnskeyRecord[],
  dnskeyRrsigs: readonly RrsigRecord[],
  now?: Date | number,
): DsCheck {
  const tagged = dnskeys.filter((key) => keyTag(key.rdata) === ds.keyTag);
  let key: DnskeyRecord | undefined;
  let digest: DsCheck['digest'] = 'no-key';
  for (const candidate of tagged) {
    const computed = dsDigest(owner, candidate.rdata, ds.digestType);
    if (computed === undefined || compareBytes(computed, ds.digest) === 0) {
      key = candidate;
      digest = computed === undefined ? 'unsupported' : 'match';
      break;
    }
  }
  if (!key && tagged.length > 0) {
    key = tagged[0];
    digest = 'mismatch';
  }
  const zoneKey = key !== undefined && (key.rdata.flags & ZONE_KEY) !== 0;
  const sep = key !== undefined && (key.rdata.flags & SEP) !== 0;
  const signatures =
    key && zoneKey
      ? dnskeyRrsigs
          .filter((rrsig) => rrsig.rdata.keyTag === ds.keyTag)
          .map((rrsig) => ({ rrsig, result: verifyWithKeys(dnskeys, rrsig, dnskeys, now) }))
      : [];
  return { ds, ...(key && { key }), digest, zoneKey, sep, signatures };
}

export type ChainFailure =
  | 'no-ds'
  | 'no-dnskey-for-ds'
  | 'digest-mismatch'
  | 'not-zone-key'
  | 'dnskey-not-signed'
  | 'dnskey-signature-invalid'
  | 'rrset-not-signed'
  | 'rrset-signature-invalid';

export type ChainResult =
  { ok: true; anchor: DnskeyRecord } | { ok: false; step: 'ds' | 'dnskey' | 'rrset'; reason: ChainFailure; detail: string };

export interface ChainInput {
  owner: Name;
  ds: readonly DsData[];
  dnskeys: readonly DnskeyRecord[];
  dnskeyRrsigs: readonly RrsigRecord[];
  /** An RRset of the zone and its RRSIGs; without it the walk ends at the DNSKEY set. */
  rrset?: readonly RecordInput[];
  rrsetRrsigs?: readonly RrsigRecord[];
  now?: Date | number;
}

/**
 * Walks DS -> DNSKEY -> RRset. The chain holds when some DS names a zone key by a matching digest
 * (or a digest type we cannot compute) that validly signs the DNSKEY set, and some key of that set
 * validly signs the RRset. A failure reports the furthest step any DS reached, with its reason.
 */
export function walkChain(input: ChainInput): ChainResult {
  const { owner, now } = input;
  if (input.ds.length === 0) return { ok: false, step: 'ds', reason: 'no-ds', detail: 'the parent has no DS for the zone' };
  const checks = input.ds.map((ds) => checkDs(owner, ds, input.dnskeys, input.dnskeyRrsigs, now));
  const anchored = checks.find((c) => c.key && c.digest !== 'mismatch' && c.zoneKey && c.signatures.some((s) => s.result.ok));
  if (!anchored?.key) {
    const stage = (c: DsCheck): number => (!c.key ? 0 : c.digest === 'mismatch' ? 1 : !c.zoneKey ? 2 : c.signatures.length === 0 ? 3 : 4);
    const best = checks.reduce((a, b) => (stage(b) > stage(a) ? b : a));
    const tag = best.ds.keyTag;
    const failed = best.signatures.find((s) => !s.result.ok)?.result;
    const failures: [ChainFailure, string][] = [
      ['no-dnskey-for-ds', `no DNSKEY has the key tag ${tag} of the DS`],
      ['digest-mismatch', `the DS digest for key tag ${tag} does not match the DNSKEY`],
      ['not-zone-key', `the DNSKEY with key tag ${tag} is not a zone key`],
      ['dnskey-not-signed', `the DNSKEY RRset has no RRSIG by key tag ${tag}`],
      [
        'dnskey-signature-invalid',
        `the RRSIG by key tag ${tag} over the DNSKEY RRset does not verify: ${failed && !failed.ok ? failed.detail : ''}`,
      ],
    ];
    const [reason, detail] = failures[stage(best)];
    return { ok: false, step: stage(best) < 3 ? 'ds' : 'dnskey', reason, detail };
  }
  if (!input.rrset) return { ok: true, anchor: anchored.key };
  const rrsigs = input.rrsetRrsigs ?? [];
  if (rrsigs.length === 0) return { ok: false, step: 'rrset', reason: 'rrset-not-signed', detail: 'the RRset has no RRSIG' };
  const results = rrsigs.map((rrsig) => verifyWithKeys(input.rrset!, rrsig, input.dnskeys, now));
  const bad = results.find((r) => !r.ok);
  if (results.some((r) => r.ok)) return { ok: true, anchor: anchored.key };
  return { ok: false, step: 'rrset', reason: 'rrset-signature-invalid', detail: bad && !bad.ok ? bad.detail : 'no RRSIG verifies' };
}

/** RRSIG records among `records`, typed, whatever they cover. */
export function rrsigRecords(records: readonly ResourceRecord[]): RrsigRecord[] {
  return records.filter((rr): rr is ResourceRecord<RrsigData> => recordIs(rr, RRType.RRSIG));
}
