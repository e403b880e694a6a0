import { keyTag, type DnskeyData, type DsData } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { familyTags, hex, dsKey } from './records.ts';
import { listed } from './finding-lists.ts';
import { childKeySets } from './servers.ts';
import { specs, gated } from './declaration.ts';

const rrsetText = (records: readonly { rdata: DsData | DnskeyData }[]): string =>
  records
    .map((rr) =>
      'keyTag' in rr.rdata ? dsKey(rr.rdata) : `${rr.rdata.flags}/${rr.rdata.protocol}/${rr.rdata.algorithm}/${hex(rr.rdata.publicKey)}`,
    )
    .sort()
    .join('\n');

/** DNSSEC15: CDS and CDNSKEY are there together and agree, on every server. */
export const dnssec15: TestCase = {
  id: 'DNSSEC15',
  spec: `${specs}/dnssec15.md`,
  tags: [
    'DS15_HAS_CDNSKEY_NO_CDS',
    'DS15_HAS_CDS_AND_CDNSKEY',
    'DS15_HAS_CDS_NO_CDNSKEY',
    'DS15_INCONSISTENT_CDNSKEY',
    'DS15_INCONSISTENT_CDS',
    'DS15_MISMATCH_CDS_CDNSKEY',
    'DS15_NO_CDS_CDNSKEY',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const messages: Message[] = [];
    const sets = await childKeySets(context, ['CDS', 'CDNSKEY'], messages);
    // The reference reads CDNSKEY only from a server whose CDS answer was usable.
    const cds = new Map([...sets].flatMap(([ip, s]) => (s.cds ? [[ip, s.cds.records] as const] : [])));
    const cdnskey = new Map([...sets].flatMap(([ip, s]) => (s.cds && s.cdnskey ? [[ip, s.cdnskey.records] as const] : [])));
    if ([...cds.values(), ...cdnskey.values()].every((records) => records.length === 0))
      return [...messages, { tag: 'DS15_NO_CDS_CDNSKEY', args: {} }];
    const [cdsOnly, cdnskeyOnly, both, mismatch] = [[], [], [], []] as string[][];
    for (const [ip, cdsRecords] of cds) {
      const keys = cdnskey.get(ip);
      if (!keys) continue;
      if (cdsRecords.length > 0 && keys.length === 0) cdsOnly.push(ip);
      else if (keys.length > 0 && cdsRecords.length === 0) cdnskeyOnly.push(ip);
      else if (cdsRecords.length > 0) {
        both.push(ip);
        const matches = (ds: DsData, key: DnskeyData): boolean => ds.keyTag === keyTag(key) || (ds.algorithm === 0 && key.algorithm === 0);
        if (
          cdsRecords.some((ds) => !keys.some((key) => matches(ds.rdata, key.rdata))) ||
          keys.some((key) => !cdsRecords.some((ds) => matches(ds.rdata, key.rdata)))
        )
          mismatch.push(ip);
      }
    }
    messages.push(
      ...listed('DS15_HAS_CDS_NO_CDNSKEY', cdsOnly),
      ...listed('DS15_HAS_CDNSKEY_NO_CDS', cdnskeyOnly),
      ...listed('DS15_HAS_CDS_AND_CDNSKEY', both),
    );
    if (new Set([...cds.values()].map(rrsetText)).size > 1) messages.push({ tag: 'DS15_INCONSISTENT_CDS', args: {} });
    if (new Set([...cdnskey.values()].map(rrsetText)).size > 1) messages.push({ tag: 'DS15_INCONSISTENT_CDNSKEY', args: {} });
    messages.push(...listed('DS15_MISMATCH_CDS_CDNSKEY', mismatch));
    return messages;
  },
};
