import { RRType } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { byText, rcodeName, recordsOfType } from '../../net/response.ts';
import type { Rrsig } from './records.ts';
import { familyTags, rrsigsIn, good, hasDo } from './records.ts';
import { nsList, names, push } from './finding-lists.ts';
import { familyOff, givenDs, parentGroups, childGroups, dnskeyQuery } from './servers.ts';
import { specs } from './declaration.ts';

const coversType = (rrsigs: readonly Rrsig[], type: number): boolean => rrsigs.some((sig) => sig.rdata.typeCovered === type);

/** DNSSEC07: is the zone signed (a signed DNSKEY RRset on its servers), and is there a signed DS at the parent? */
export const dnssec07: TestCase = {
  id: 'DNSSEC07',
  spec: `${specs}/dnssec07.md`,
  tags: [
    'DS07_DS_FOR_SIGNED_ZONE',
    'DS07_DS_ON_PARENT_SERVER',
    'DS07_INCONSISTENT_DS',
    'DS07_INCONSISTENT_SIGNED',
    'DS07_NON_AUTH_RESPONSE_DNSKEY',
    'DS07_NOT_SIGNED',
    'DS07_NOT_SIGNED_ON_SERVER',
    'DS07_NO_DS_FOR_SIGNED_ZONE',
    'DS07_NO_DS_ON_PARENT_SERVER',
    'DS07_NO_RESPONSE_DNSKEY',
    'DS07_SIGNED',
    'DS07_SIGNED_ON_SERVER',
    'DS07_UNEXP_RCODE_RESP_DNSKEY',
    ...familyTags,
  ],
  // The module's gate: every other DNSSEC test case waits for it, and it waits for the zone's servers'
  // own addresses. Its lookups are made as soon as the delegation is known.
  lookAhead: (context) => dnssec07.run(context),
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const [ignored, noResponse, noAuth, signed, unsigned] = [[], [], [], [], []] as string[][];
    const rcodes = new Map<string, string[]>();
    const children = await childGroups(context);
    const asked = children.filter((group) => !familyOff(context, group[0], ['SOA', 'DNSKEY', 'DS'], messages));
    const answers = await Promise.all(
      asked.map(async (group) => {
        const soa = await group[0].query(zone.name, RRType.SOA);
        if (!good(soa) || recordsOfType(soa, RRType.SOA, ['answer']).length === 0) return undefined;
        return { dnskey: await dnskeyQuery(group[0], zone.name) };
      }),
    );
    asked.forEach((group, i) => {
      const answer = answers[i];
      const ns = names(group);
      if (!answer) return void ignored.push(...ns);
      const { dnskey } = answer;
      if (!dnskey) return void noResponse.push(...ns);
      if (!dnskey.aa) return void noAuth.push(...ns);
      if (dnskey.rcode !== 0) return void push(rcodes, rcodeName(dnskey.rcode), ns);
      (coversType(rrsigsIn(dnskey), RRType.DNSKEY) ? signed : unsigned).push(...ns);
    });
    const [noDs, withDs] = [[], []] as string[][];
    if (signed.length > 0) {
      if (givenDs(context)) withDs.push('-');
      else {
        const groups = (await parentGroups(context)).filter((group) => !familyOff(context, group[0], ['DS'], messages));
        const responses = await Promise.all(groups.map((group) => group[0].query(zone.name, RRType.DS, { dnssec: true })));
        groups.forEach((group, i) => {
          const response = responses[i];
          if (!good(response) || !hasDo(response)) return;
          (coversType(rrsigsIn(response, 'answer', zone.name), RRType.DS) ? withDs : noDs).push(...names(group));
        });
      }
    }
    const all = new Set(children.flat().map(String));
    const unusable = new Set([...ignored, ...noResponse, ...noAuth, ...[...rcodes.values()].flat()]);
    if (unusable.size === all.size && [...all].every((ns) => unusable.has(ns))) messages.push({ tag: 'DS07_NOT_SIGNED', args: {} });
    if (noResponse.length > 0) messages.push({ tag: 'DS07_NO_RESPONSE_DNSKEY', args: { ns_list: nsList(noResponse) } });
    if (noAuth.length > 0) messages.push({ tag: 'DS07_NON_AUTH_RESPONSE_DNSKEY', args: { ns_list: nsList(noAuth) } });
    for (const [rcode, ns] of [...rcodes].sort(([a], [b]) => byText(a, b)))
      messages.push({ tag: 'DS07_UNEXP_RCODE_RESP_DNSKEY', args: { ns_list: nsList(ns), rcode } });
    if (signed.length > 0) messages.push({ tag: 'DS07_SIGNED_ON_SERVER', args: { ns_list: nsList(signed) } });
    if (unsigned.length > 0) messages.push({ tag: 'DS07_NOT_SIGNED_ON_SERVER', args: { ns_list: nsList(unsigned) } });
    if (signed.length > 0)
      messages.push(unsigned.length > 0 ? { tag: 'DS07_INCONSISTENT_SIGNED', args: {} } : { tag: 'DS07_SIGNED', args: {} });
    else if (unsigned.length > 0) messages.push({ tag: 'DS07_NOT_SIGNED', args: {} });
    if (noDs.length > 0) messages.push({ tag: 'DS07_NO_DS_ON_PARENT_SERVER', args: { ns_list: nsList(noDs) } });
    if (withDs.length > 0) messages.push({ tag: 'DS07_DS_ON_PARENT_SERVER', args: { ns_list: nsList(withDs) } });
    if (noDs.length > 0 && withDs.length > 0) messages.push({ tag: 'DS07_INCONSISTENT_DS', args: {} });
    if (unsigned.length === 0 && signed.length > 0) {
      if (noDs.length > 0 && withDs.length === 0) messages.push({ tag: 'DS07_NO_DS_FOR_SIGNED_ZONE', args: {} });
      if (noDs.length === 0 && withDs.length > 0) messages.push({ tag: 'DS07_DS_FOR_SIGNED_ZONE', args: {} });
    }
    return messages;
  },
};
