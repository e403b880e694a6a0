import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import type { Dnskey, Rrsig } from './records.ts';
import { familyTags, tagOf } from './records.ts';
import { listed } from './finding-lists.ts';
import type { ChildKeySets } from './servers.ts';
import { parentDsRecords, childKeySets } from './servers.ts';
import { specs, gated } from './declaration.ts';

/** DNSSEC18: a key the parent's DS names signs the CDS and CDNSKEY RRsets. */
export const dnssec18: TestCase = {
  id: 'DNSSEC18',
  spec: `${specs}/dnssec18.md`,
  tags: ['DS18_NO_MATCH_CDS_RRSIG_DS', 'DS18_NO_MATCH_CDNSKEY_RRSIG_DS', ...familyTags],
  ...gated,
  async run(context) {
    const messages: Message[] = [];
    const dsRecords = await parentDsRecords(context, messages);
    if (dsRecords.length === 0) return messages;
    const sets = await childKeySets(context, ['CDNSKEY', 'CDS', 'DNSKEY'], messages);
    // As the reference reads them: CDNSKEY only after a usable CDS answer, DNSKEY only after a usable CDNSKEY answer.
    const cds = [...sets].filter(([, s]) => s.cds && s.cds.records.length > 0);
    const cdnskey = [...sets].filter(([, s]) => s.cds && s.cdnskey && s.cdnskey.records.length > 0);
    const dnskeyOf = (s: ChildKeySets): Dnskey[] => (s.cds && s.cdnskey && s.dnskey ? s.dnskey.records : []);
    if ((cds.length === 0 && cdnskey.length === 0) || ![...sets.values()].some((s) => dnskeyOf(s).length > 0)) return messages;
    const unmatched = (rrsigs: readonly Rrsig[], keys: readonly Dnskey[]): boolean =>
      !dsRecords.some((ds) => keys.some((key) => tagOf(key) === ds.keyTag) && rrsigs.some((sig) => sig.rdata.keyTag === ds.keyTag));
    messages.push(
      ...listed(
        'DS18_NO_MATCH_CDS_RRSIG_DS',
        cds.filter(([, s]) => unmatched(s.cds!.rrsigs, dnskeyOf(s))).map(([ip]) => ip),
      ),
      ...listed(
        'DS18_NO_MATCH_CDNSKEY_RRSIG_DS',
        cdnskey.filter(([, s]) => unmatched(s.cdnskey!.rrsigs, dnskeyOf(s))).map(([ip]) => ip),
      ),
    );
    return messages;
  },
};
