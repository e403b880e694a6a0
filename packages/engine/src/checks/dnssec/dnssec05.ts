import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { algorithm, algorithmStatuses } from '../../rules/dnssec-tables.ts';
import { familyTags, dnskeysIn, good, tagOf } from './records.ts';
import { nsList, names, numbered, push } from './finding-lists.ts';
import { familyOff, childGroups, dnskeyQuery } from './servers.ts';
import { specs, gated } from './declaration.ts';

/** DNSSEC05: the algorithms of the DNSKEYs, per key and server. */
export const dnssec05: TestCase = {
  id: 'DNSSEC05',
  spec: `${specs}/dnssec05.md`,
  tags: [
    ...algorithmStatuses.map((status) => `DS05_ALGO_${status}`),
    'DS05_NO_RESPONSE',
    'DS05_SERVER_NO_DNSSEC',
    'DS05_ZONE_NO_DNSSEC',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const [ignored, without, withKeys] = [[], [], []] as string[][];
    // algorithm -> key tag -> servers
    const seen = new Map<number, Map<number, string[]>>();
    const groups = (await childGroups(context)).filter((group) => !familyOff(context, group[0], ['DNSKEY'], messages));
    const responses = await Promise.all(groups.map((group) => dnskeyQuery(group[0], zone.name)));
    groups.forEach((group, i) => {
      const response = responses[i];
      if (!good(response)) return void ignored.push(...names(group));
      const keys = dnskeysIn(response, zone.name);
      if (keys.length === 0) return void without.push(...names(group));
      withKeys.push(...names(group));
      for (const key of keys) {
        if (!seen.has(key.rdata.algorithm)) seen.set(key.rdata.algorithm, new Map());
        push(seen.get(key.rdata.algorithm)!, tagOf(key), names(group));
      }
    });
    for (const status of algorithmStatuses) {
      for (const [algo, keys] of numbered(seen)) {
        const { status: own, description, mnemonic: mnemo } = algorithm(algo);
        if (own !== status) continue;
        for (const [keytag, servers] of numbered(keys)) {
          messages.push({
            tag: `DS05_ALGO_${status}`,
            args: { ns_list: nsList(servers), keytag, algo_num: algo, algo_descr: description, algo_mnemo: mnemo },
          });
        }
      }
    }
    if (without.length === 0 && withKeys.length === 0) messages.push({ tag: 'DS05_NO_RESPONSE', args: { ns_list: nsList(ignored) } });
    if (without.length > 0)
      messages.push({ tag: withKeys.length === 0 ? 'DS05_ZONE_NO_DNSSEC' : 'DS05_SERVER_NO_DNSSEC', args: { ns_list: nsList(without) } });
    return messages;
  },
};
