import { RRType } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { recordsFor } from '../../net/response.ts';
import { familyTags, dnskeysIn, dsIn, good } from './records.ts';
import { listed } from './finding-lists.ts';
import { childServers, parentServers } from './servers.ts';
import { specs } from './declaration.ts';

/** DNSSEC11: a DS at the parent means the zone must be signed. */
export const dnssec11: TestCase = {
  id: 'DNSSEC11',
  spec: `${specs}/dnssec11.md`,
  tags: [
    'DS11_INCONSISTENT_DS',
    'DS11_INCONSISTENT_SIGNED_ZONE',
    'DS11_UNDETERMINED_DS',
    'DS11_UNDETERMINED_SIGNED_ZONE',
    'DS11_PARENT_WITHOUT_DS',
    'DS11_PARENT_WITH_DS',
    'DS11_NS_WITH_SIGNED_ZONE',
    'DS11_NS_WITH_UNSIGNED_ZONE',
    'DS11_DS_BUT_UNSIGNED_ZONE',
    ...familyTags,
  ],
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    if (zone.undelegated) {
      if ((await zone.dsFromParent()).length === 0) return messages;
    } else {
      const [undetermined, without, withDs] = [[], [], []] as string[][];
      const servers = await parentServers(context, messages);
      const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.DS, { dnssec: true })));
      servers.forEach((server, i) => {
        const response = responses[i];
        if (!good(response)) undetermined.push(server.address);
        else (dsIn(response, RRType.DS, zone.name).length > 0 ? withDs : without).push(server.address);
      });
      if (undetermined.length > 0 && without.length === 0 && withDs.length === 0)
        return [...messages, { tag: 'DS11_UNDETERMINED_DS', args: {} }];
      if (without.length > 0 && withDs.length === 0) return messages;
      if (without.length > 0)
        messages.push(
          { tag: 'DS11_INCONSISTENT_DS', args: {} },
          ...listed('DS11_PARENT_WITHOUT_DS', without),
          ...listed('DS11_PARENT_WITH_DS', withDs),
        );
    }
    const [undetermined, unsigned, signed] = [[], [], []] as string[][];
    // Each server's two questions in turn, the servers side by side (the verdicts kept in server order).
    const servers = await childServers(context, ['SOA', 'DNSKEY'], messages);
    const verdicts = await Promise.all(
      servers.map(async (server) => {
        const soa = await server.query(zone.name, RRType.SOA);
        if (!good(soa) || recordsFor(soa, RRType.SOA, zone.name, ['answer']).length === 0) return undefined;
        const keys = await server.query(zone.name, RRType.DNSKEY);
        return !good(keys) ? undetermined : dnskeysIn(keys, zone.name).length > 0 ? signed : unsigned;
      }),
    );
    servers.forEach((server, i) => verdicts[i]?.push(server.address));
    if (undetermined.length > 0 && unsigned.length === 0 && signed.length === 0)
      messages.push({ tag: 'DS11_UNDETERMINED_SIGNED_ZONE', args: {} });
    else if (unsigned.length > 0 && signed.length === 0) messages.push({ tag: 'DS11_DS_BUT_UNSIGNED_ZONE', args: {} });
    else if (unsigned.length > 0)
      messages.push(
        { tag: 'DS11_INCONSISTENT_SIGNED_ZONE', args: {} },
        ...listed('DS11_NS_WITH_UNSIGNED_ZONE', unsigned),
        ...listed('DS11_NS_WITH_SIGNED_ZONE', signed),
      );
    return messages;
  },
};
