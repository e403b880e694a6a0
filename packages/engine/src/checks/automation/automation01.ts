// Automation01: the DS RRset a parent polling the child's CDS/CDNSKEY would publish now (RFC 7344
// §4.1, RFC 8078), ready to paste at a registrar, or why it would change nothing.
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { familyTags, now } from '../dnssec/records.ts';
import { childAnswers, currentDs } from './child-answers.ts';
import { dsLine, parentDsVerdict } from './parent-ds.ts';

export const spec = 'RFC 7344 §4.1, RFC 8078 §3-4, RFC 9615, RFC 7477, RFC 8901';

export const parentDsTags = [
  'PARENT_DS_PUBLISH',
  'PARENT_DS_REMOVE',
  'PARENT_DS_UNCHANGED',
  'PARENT_DS_NO_CDS',
  'PARENT_DS_UNSIGNED_DELEGATION',
  'PARENT_DS_ALREADY_INSECURE',
  'PARENT_DS_NO_ANSWER',
  'PARENT_DS_INCONSISTENT',
  'PARENT_DS_MIXED_DELETE',
  'PARENT_DS_DNSKEY_NOT_TRUSTED',
  'PARENT_DS_NOT_SIGNED_BY_DS_KEY',
  'PARENT_DS_UNEVEN_DIGESTS',
  'PARENT_DS_BREAKS_CHAIN',
] as const;

/** One finding: what the parent should do; a publish verdict lists the DS records (`ds_list`, `;` between records). */
export const automation01: TestCase = {
  id: 'Automation01',
  spec,
  tags: [...parentDsTags, ...familyTags],
  async run(context) {
    const messages: Message[] = [];
    const [servers, current] = await Promise.all([childAnswers(context, messages), currentDs(context, messages)]);
    const verdict = parentDsVerdict({ zone: context.zone.name, current, servers, time: now() });
    const args =
      verdict.action === 'publish'
        ? { ...verdict.args, ds_list: verdict.ds.map((d) => dsLine(context.zone.name, d)).join(';') }
        : verdict.args;
    return [...messages, { tag: verdict.tag, args }];
  },
};
