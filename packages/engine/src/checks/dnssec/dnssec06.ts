import { RRType } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { dnskeysIn, rrsigsIn } from './records.ts';
import { specs, gated } from './declaration.ts';

/** DNSSEC06: the zone's servers send the RRSIGs with the DNSKEY RRset. */
export const dnssec06: TestCase = {
  id: 'DNSSEC06',
  spec: `${specs}/dnssec06.md`,
  tags: ['EXTRA_PROCESSING_OK', 'EXTRA_PROCESSING_BROKEN'],
  ...gated,
  async run({ zone }) {
    const messages: Message[] = [];
    for (const { server, response } of await zone.queryAll(zone.name, RRType.DNSKEY, { dnssec: true })) {
      if (!response) continue;
      const keys = dnskeysIn(response).length;
      const sigs = rrsigsIn(response).length;
      const args = { server: server.address, keys, sigs };
      if (keys > 0 && sigs > 0) messages.push({ tag: 'EXTRA_PROCESSING_OK', args });
      else if (response.rcode === 0) messages.push({ tag: 'EXTRA_PROCESSING_BROKEN', args });
    }
    return messages;
  },
};
