// One RRSIG checked the way the reference checks it.
import { isSupportedAlgorithm, verifyWithKeys, type DnskeyRecord, type RecordInput } from '@app/dns';
import type { Message } from '../../finding.ts';
import { mnemonic } from '../../rules/dnssec-tables.ts';
import type { Rrsig } from './records.ts';
import { tagOf } from './records.ts';
import { Grouped } from './finding-lists.ts';

export type SignatureFault = 'unsupported' | 'no-key' | 'invalid' | 'not-yet-valid' | 'expired' | undefined;

/** The reference's order of checks on one RRSIG: time window first when asked, then algorithm, key, signature. */
export function signatureFault(
  rrset: readonly RecordInput[],
  rrsig: Rrsig,
  keys: readonly DnskeyRecord[],
  time: number,
  window: boolean,
): SignatureFault {
  if (window && rrsig.rdata.inception > time) return 'not-yet-valid';
  if (window && rrsig.rdata.expiration < time) return 'expired';
  if (!isSupportedAlgorithm(rrsig.rdata.algorithm)) return 'unsupported';
  if (!keys.some((key) => tagOf(key) === rrsig.rdata.keyTag)) return 'no-key';
  return verifyWithKeys(rrset, rrsig, keys, time).ok ? undefined : 'invalid';
}

/** ALGO_NOT_SUPPORTED_BY_ZM per key tag and algorithm. */
export class Unsupported {
  readonly #grouped = new Grouped();
  add(rrsig: Rrsig, ip: string): void {
    this.#grouped.add(`${rrsig.rdata.keyTag}/${rrsig.rdata.algorithm}`, ip);
  }
  messages(tag: string): Message[] {
    return this.#grouped.messages(tag, (key) => {
      const [keytag, algo] = key.split('/').map(Number);
      return { keytag, algo_num: algo, algo_mnemo: mnemonic(algo) };
    });
  }
}
