import { RRType } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { recordsOfType } from '../../net/response.ts';
import { mnemonic } from '../../rules/dnssec-tables.ts';
import { familyTags, dnskeysIn, rrsigsIn, good } from './records.ts';
import { Grouped } from './finding-lists.ts';
import { childServers } from './servers.ts';
import { specs, gated } from './declaration.ts';

/** DNSSEC13: every DNSKEY algorithm signs the DNSKEY, SOA and NS RRsets. */
export const dnssec13: TestCase = {
  id: 'DNSSEC13',
  spec: `${specs}/dnssec13.md`,
  tags: ['DS13_ALGO_NOT_SIGNED_DNSKEY', 'DS13_ALGO_NOT_SIGNED_NS', 'DS13_ALGO_NOT_SIGNED_SOA', ...familyTags],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const types = ['DNSKEY', 'SOA', 'NS'] as const;
    const missing = Object.fromEntries(types.map((t) => [t, new Grouped()])) as Record<(typeof types)[number], Grouped>;
    // Every question at once (none is a plain SOA query, so none can make a server silent for another;
    // each is asked whatever the one before got), judged in turn, what is missing kept in server order.
    const servers = await childServers(context, types, messages);
    const perServer = await Promise.all(
      servers.map(async (server) => {
        const unsigned: [(typeof types)[number], number][] = [];
        let algorithms: number[] = [];
        const responses = await Promise.all(types.map((type) => server.query(zone.name, RRType[type], { dnssec: true })));
        for (const [i, type] of types.entries()) {
          const rrtype = RRType[type];
          const response = responses[i];
          if (!good(response) || recordsOfType(response, rrtype, ['answer']).length === 0) continue;
          const sigs = rrsigsIn(response);
          if (sigs.length === 0) continue;
          if (type === 'DNSKEY') algorithms = [...new Set(dnskeysIn(response).map((key) => key.rdata.algorithm))];
          for (const algo of algorithms) if (!sigs.some((sig) => sig.rdata.algorithm === algo)) unsigned.push([type, algo]);
        }
        return unsigned;
      }),
    );
    servers.forEach((server, i) => {
      for (const [type, algo] of perServer[i]) missing[type].add(algo, server.address);
    });
    for (const type of types)
      messages.push(
        ...missing[type].messages(`DS13_ALGO_NOT_SIGNED_${type}`, (algo) => ({
          algo_num: Number(algo),
          algo_mnemo: mnemonic(Number(algo)),
        })),
      );
    return messages;
  },
};
