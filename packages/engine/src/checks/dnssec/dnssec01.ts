import { RRType } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { digestName, digestTag, digestTags } from '../../rules/dnssec-tables.ts';
import { familyTags, dsIn, good, hasDo } from './records.ts';
import { nsList, textList, names, numbered, push } from './finding-lists.ts';
import { familyOff, givenDs, parentGroups } from './servers.ts';
import { specs, gated } from './declaration.ts';

/** DNSSEC01: the digest types of the DS records at the parent. */
export const dnssec01: TestCase = {
  id: 'DNSSEC01',
  spec: `${specs}/dnssec01.md`,
  tags: [
    ...digestTags,
    'DS01_DS_ALGO_2_MISSING',
    'DS01_NO_RESPONSE',
    'DS01_PARENT_SERVER_NO_DS',
    'DS01_PARENT_ZONE_NO_DS',
    'DS01_ROOT_N_NO_UNDEL_DS',
    'DS01_UNDEL_N_NO_UNDEL_DS',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    // digest type -> key tag -> servers ('-' for DS records given to an undelegated test)
    const seen = new Map<number, Map<number, string[]>>();
    const [sha256, other] = [new Map<number, string[]>(), new Map<number, string[]>()];
    const [ignored, without, withDs] = [[], [], []] as string[][];
    const note = (digestType: number, keyTag: number, servers: string[]): void => {
      if (!seen.has(digestType)) seen.set(digestType, new Map());
      push(seen.get(digestType)!, keyTag, servers);
      push(digestType === 2 ? sha256 : other, keyTag, servers);
    };
    const given = givenDs(context) ? await zone.dsFromParent() : [];
    if (given.length > 0) {
      for (const ds of given) note(ds.digtype, ds.keytag, ['-']);
      withDs.push('-');
    } else {
      const groups = (await parentGroups(context)).filter((group) => !familyOff(context, group[0], ['DS'], messages));
      const responses = await Promise.all(groups.map((group) => group[0].query(zone.name, RRType.DS, { dnssec: true })));
      groups.forEach((group, i) => {
        const response = responses[i];
        if (!good(response) || !hasDo(response)) return void ignored.push(...names(group));
        const records = dsIn(response, RRType.DS);
        if (!records.some((ds) => ds.name.equals(zone.name))) return void without.push(...names(group));
        withDs.push(...names(group));
        for (const ds of records) note(ds.rdata.digestType, ds.rdata.keyTag, names(group));
      });
    }
    for (const tag of digestTags) {
      for (const [digest, keys] of numbered(seen)) {
        if (digestTag(digest) !== tag) continue;
        for (const [keytag, servers] of numbered(keys))
          messages.push({ tag, args: { ns_list: nsList(servers), keytag, ds_algo_num: digest, ds_algo_descr: digestName(digest) } });
      }
    }
    for (const [keytag, servers] of numbered(other)) {
      const with256 = new Set(sha256.get(keytag) ?? []);
      const missing = servers.filter((server) => !with256.has(server));
      if (missing.length > 0) messages.push({ tag: 'DS01_DS_ALGO_2_MISSING', args: { ns_list: textList(missing), keytag } });
    }
    if (without.length === 0 && withDs.length === 0 && ignored.length > 0)
      messages.push({ tag: 'DS01_NO_RESPONSE', args: { ns_list: nsList(ignored) } });
    if (zone.name.isRoot && given.length === 0) messages.push({ tag: 'DS01_ROOT_N_NO_UNDEL_DS', args: {} });
    if (!zone.name.isRoot && (zone.undelegated?.nameservers.length ?? 0) > 0 && given.length === 0)
      messages.push({ tag: 'DS01_UNDEL_N_NO_UNDEL_DS', args: {} });
    if (without.length > 0)
      messages.push({
        tag: withDs.length === 0 ? 'DS01_PARENT_ZONE_NO_DS' : 'DS01_PARENT_SERVER_NO_DS',
        args: { ns_list: nsList(without) },
      });
    return messages;
  },
};
