import { RRType, recordIs, type Nsec3Data, type ResourceRecord } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { recordsOfType } from '../../net/response.ts';
import { familyTags, dnskeysIn, good } from './records.ts';
import { nsList, numbered, push } from './finding-lists.ts';
import { childServers, dnskeyQuery } from './servers.ts';
import { specs, gated } from './declaration.ts';

/** DNSSEC03: the NSEC3 parameters (RFC 9276: SHA-1, no extra iterations, no salt), from the NSEC3 record of the apex's NODATA answer. */
export const dnssec03: TestCase = {
  id: 'DNSSEC03',
  spec: `${specs}/dnssec03.md`,
  tags: [
    'DS03_ERROR_RESPONSE_NSEC_QUERY',
    'DS03_ERR_MULT_NSEC3',
    'DS03_ILLEGAL_HASH_ALGO',
    'DS03_ILLEGAL_ITERATION_VALUE',
    'DS03_ILLEGAL_SALT_LENGTH',
    'DS03_INCONSISTENT_HASH_ALGO',
    'DS03_INCONSISTENT_ITERATION',
    'DS03_INCONSISTENT_NSEC3_FLAGS',
    'DS03_INCONSISTENT_SALT_LENGTH',
    'DS03_LEGAL_EMPTY_SALT',
    'DS03_LEGAL_HASH_ALGO',
    'DS03_LEGAL_ITERATION_VALUE',
    'DS03_NO_DNSSEC_SUPPORT',
    'DS03_NO_NSEC3',
    'DS03_NO_RESPONSE_NSEC_QUERY',
    'DS03_NSEC3_OPT_OUT_DISABLED',
    'DS03_NSEC3_OPT_OUT_ENABLED_NON_TLD',
    'DS03_NSEC3_OPT_OUT_ENABLED_TLD',
    'DS03_SERVER_NO_DNSSEC_SUPPORT',
    'DS03_SERVER_NO_NSEC3',
    'DS03_UNASSIGNED_FLAG_USED',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const lists = {
      withoutKey: [],
      withKey: [],
      withoutNsec3: [],
      withNsec3: [],
      multiple: [],
      noResponse: [],
      errorResponse: [],
    } as Record<string, string[]>;
    const [hashAlgorithm, flags, iterations, saltLength] = [
      new Map<number, string[]>(),
      new Map<number, string[]>(),
      new Map<number, string[]>(),
      new Map<number, string[]>(),
    ];
    const servers = await childServers(context, ['DNSKEY', 'NSEC'], messages);
    const answers = await Promise.all(
      servers.map(async (server) => {
        const keys = await dnskeyQuery(server, zone.name);
        if (!good(keys) || dnskeysIn(keys, zone.name).length === 0) return { keys };
        return { keys, nsec: await server.query(zone.name, RRType.NSEC, { dnssec: true }) };
      }),
    );
    servers.forEach((server, i) => {
      const { keys, nsec } = answers[i];
      const ns = [server.toString()];
      if (!good(keys)) return;
      if (dnskeysIn(keys, zone.name).length === 0) return void lists.withoutKey.push(...ns);
      lists.withKey.push(...ns);
      if (!nsec) return void lists.noResponse.push(...ns);
      if (!good(nsec)) return void lists.errorResponse.push(...ns);
      const nsec3s = recordsOfType(nsec, RRType.NSEC3, ['authority']).filter((rr): rr is ResourceRecord<Nsec3Data> =>
        recordIs(rr, RRType.NSEC3),
      );
      if (nsec3s.length === 0) return void lists.withoutNsec3.push(...ns);
      lists.withNsec3.push(...ns);
      if (nsec3s.length > 1) lists.multiple.push(...ns);
      const { rdata } = nsec3s[0];
      push(hashAlgorithm, rdata.hashAlgorithm, ns);
      push(flags, rdata.flags, ns);
      push(iterations, rdata.iterations, ns);
      // The reference measures the salt in hex digits.
      push(saltLength, rdata.salt.length * 2, ns);
    });
    const some = (list: string[]): boolean => list.length > 0;
    if (!some(lists.withKey) && some(lists.withoutKey))
      messages.push({ tag: 'DS03_NO_DNSSEC_SUPPORT', args: { ns_list: nsList(lists.withoutKey) } });
    if (some(lists.withKey) && some(lists.withoutKey))
      messages.push({ tag: 'DS03_SERVER_NO_DNSSEC_SUPPORT', args: { ns_list: nsList(lists.withoutKey) } });
    if (!some(lists.withNsec3) && some(lists.withoutNsec3))
      messages.push({ tag: 'DS03_NO_NSEC3', args: { ns_list: nsList(lists.withoutNsec3) } });
    if (some(lists.withNsec3) && some(lists.withoutNsec3))
      messages.push({ tag: 'DS03_SERVER_NO_NSEC3', args: { ns_list: nsList(lists.withoutNsec3) } });
    if (some(lists.multiple)) messages.push({ tag: 'DS03_ERR_MULT_NSEC3', args: { ns_list: nsList(lists.multiple) } });
    if (hashAlgorithm.size > 1) messages.push({ tag: 'DS03_INCONSISTENT_HASH_ALGO', args: {} });
    for (const [algo, ns] of numbered(hashAlgorithm)) {
      messages.push(
        algo === 1
          ? { tag: 'DS03_LEGAL_HASH_ALGO', args: { ns_list: nsList(ns) } }
          : { tag: 'DS03_ILLEGAL_HASH_ALGO', args: { ns_list: nsList(ns), algo_num: algo } },
      );
    }
    if (flags.size > 1) messages.push({ tag: 'DS03_INCONSISTENT_NSEC3_FLAGS', args: {} });
    const tld = zone.name.labelCount <= 1;
    for (const [value, ns] of numbered(flags)) {
      // Bit positions count from the most significant bit; only bit 7 (Opt-Out) is assigned.
      for (let bit = 0; bit <= 6; bit++)
        if (value & (1 << (7 - bit))) messages.push({ tag: 'DS03_UNASSIGNED_FLAG_USED', args: { ns_list: nsList(ns), int: bit } });
      const optOut =
        value & 1 ? (tld ? 'DS03_NSEC3_OPT_OUT_ENABLED_TLD' : 'DS03_NSEC3_OPT_OUT_ENABLED_NON_TLD') : 'DS03_NSEC3_OPT_OUT_DISABLED';
      messages.push({ tag: optOut, args: { ns_list: nsList(ns) } });
    }
    if (iterations.size > 1) messages.push({ tag: 'DS03_INCONSISTENT_ITERATION', args: {} });
    for (const [count, ns] of numbered(iterations)) {
      messages.push(
        count === 0
          ? { tag: 'DS03_LEGAL_ITERATION_VALUE', args: { ns_list: nsList(ns) } }
          : { tag: 'DS03_ILLEGAL_ITERATION_VALUE', args: { ns_list: nsList(ns), int: count } },
      );
    }
    if (saltLength.size > 1) messages.push({ tag: 'DS03_INCONSISTENT_SALT_LENGTH', args: {} });
    for (const [length, ns] of numbered(saltLength)) {
      messages.push(
        length === 0
          ? { tag: 'DS03_LEGAL_EMPTY_SALT', args: { ns_list: nsList(ns) } }
          : { tag: 'DS03_ILLEGAL_SALT_LENGTH', args: { ns_list: nsList(ns), int: length } },
      );
    }
    if (some(lists.noResponse)) messages.push({ tag: 'DS03_NO_RESPONSE_NSEC_QUERY', args: { ns_list: nsList(lists.noResponse) } });
    if (some(lists.errorResponse)) messages.push({ tag: 'DS03_ERROR_RESPONSE_NSEC_QUERY', args: { ns_list: nsList(lists.errorResponse) } });
    return messages;
  },
};
