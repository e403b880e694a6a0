import { rsaKeySize } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { algorithm } from '../../rules/dnssec-tables.ts';
import { familyTags, tagOf } from './records.ts';
import { dnskeysPerServer } from './servers.ts';
import { specs, gated } from './declaration.ts';

// RSA key sizes (DNSSEC14), per algorithm: minimum, maximum, recommended.
const rsaSizes: Record<number, { min: number; max: number; rec: number }> = {
  5: { min: 512, max: 4096, rec: 2048 },
  7: { min: 512, max: 4096, rec: 2048 },
  8: { min: 512, max: 4096, rec: 2048 },
  10: { min: 1024, max: 4096, rec: 2048 },
};

/** DNSSEC14: RSA key sizes. (4.6 never emits KEY_SIZE_OK: its condition counts TEST_CASE_START too.) */
export const dnssec14: TestCase = {
  id: 'DNSSEC14',
  spec: `${specs}/dnssec14.md`,
  tags: [
    'NO_RESPONSE',
    'NO_RESPONSE_DNSKEY',
    'DNSKEY_SMALLER_THAN_REC',
    'DNSKEY_TOO_SMALL_FOR_ALGO',
    'DNSKEY_TOO_LARGE_FOR_ALGO',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const messages: Message[] = [];
    const seen = new Set<string>();
    for (const key of (await dnskeysPerServer(context, messages)).flat()) {
      const algo = key.rdata.algorithm;
      const sizes = rsaSizes[algo];
      const keysize = rsaKeySize(key.rdata) ?? 0;
      const keytag = tagOf(key);
      if (!sizes || seen.has(`${keytag}:${keysize}:${algo}`)) continue;
      seen.add(`${keytag}:${keysize}:${algo}`);
      const args = {
        algo_num: algo,
        algo_descr: algorithm(algo).description,
        keytag,
        keysize,
        keysizemin: sizes.min,
        keysizemax: sizes.max,
        keysizerec: sizes.rec,
      };
      if (keysize < sizes.min) messages.push({ tag: 'DNSKEY_TOO_SMALL_FOR_ALGO', args });
      if (keysize < sizes.rec) messages.push({ tag: 'DNSKEY_SMALLER_THAN_REC', args });
      if (keysize > sizes.max) messages.push({ tag: 'DNSKEY_TOO_LARGE_FOR_ALGO', args });
    }
    return messages;
  },
};
