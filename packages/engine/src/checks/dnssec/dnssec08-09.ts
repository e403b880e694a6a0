import { RRType, type RecordInput } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { recordsFor } from '../../net/response.ts';
import { familyTags, dnskeysIn, rrsigsIn, good, now } from './records.ts';
import { Grouped, listed } from './finding-lists.ts';
import { childServers, dnskeyQuery, zoneKeysFrom } from './servers.ts';
import { signatureFault, Unsupported } from './signatures.ts';
import { specs, gated } from './declaration.ts';

/** DNSSEC08 and DNSSEC09 share their shape: RRSIGs over one RRset, checked against the DNSKEY RRset, per server. */
function rrsigCheck(id: 'DNSSEC08' | 'DNSSEC09', prefix: 'DS08' | 'DS09', type: 'DNSKEY' | 'SOA'): TestCase {
  const rrsetWord = type === 'DNSKEY' ? 'DNSKEY' : 'SOA';
  return {
    id,
    spec: `${specs}/${id.toLowerCase()}.md`,
    tags: [
      `${prefix}_ALGO_NOT_SUPPORTED_BY_ZM`,
      `${prefix}_MISSING_RRSIG_IN_RESPONSE`,
      `${prefix}_NO_MATCHING_DNSKEY`,
      `${prefix}_RRSIG_NOT_VALID_BY_DNSKEY`,
      `${prefix}_${rrsetWord}_RRSIG_EXPIRED`,
      `${prefix}_${rrsetWord}_RRSIG_NOT_YET_VALID`,
      ...familyTags,
    ],
    ...gated,
    async run(context) {
      const { zone } = context;
      const messages: Message[] = [];
      const unsigned: string[] = [];
      const faults = { 'not-yet-valid': new Grouped(), expired: new Grouped(), 'no-key': new Grouped(), invalid: new Grouped() };
      const unsupported = new Unsupported();
      const servers = await childServers(context, ['DNSKEY'], messages);
      await Promise.all(
        servers.map(async (server) => {
          const keys = await zoneKeysFrom(server, zone.name);
          if (!keys) return;
          // DNSSEC08 checks the whole DNSKEY answer against itself; DNSSEC09 the SOA against the zone's keys.
          let response = (await dnskeyQuery(server, zone.name))!;
          let rrset: RecordInput[] = dnskeysIn(response);
          if (type === 'SOA') {
            const soa = await server.query(zone.name, RRType.SOA, { dnssec: true });
            if (!good(soa)) return;
            rrset = recordsFor(soa, RRType.SOA, zone.name, ['answer']);
            if (rrset.length === 0) return;
            response = soa;
          }
          const rrsigs = rrsigsIn(response);
          if (rrsigs.length === 0) {
            unsigned.push(server.address);
            return;
          }
          const time = now();
          for (const rrsig of rrsigs) {
            const fault = signatureFault(rrset, rrsig, type === 'DNSKEY' ? dnskeysIn(response) : keys, time, true);
            if (fault === 'unsupported') unsupported.add(rrsig, server.address);
            else if (fault) faults[fault].add(rrsig.rdata.keyTag, server.address);
          }
        }),
      );
      messages.push(
        ...listed(`${prefix}_MISSING_RRSIG_IN_RESPONSE`, unsigned),
        ...faults['not-yet-valid'].messages(`${prefix}_${rrsetWord}_RRSIG_NOT_YET_VALID`),
        ...faults.expired.messages(`${prefix}_${rrsetWord}_RRSIG_EXPIRED`),
        ...faults['no-key'].messages(`${prefix}_NO_MATCHING_DNSKEY`),
        ...faults.invalid.messages(`${prefix}_RRSIG_NOT_VALID_BY_DNSKEY`),
        ...unsupported.messages(`${prefix}_ALGO_NOT_SUPPORTED_BY_ZM`),
      );
      return messages;
    },
  };
}

export const dnssec08 = rrsigCheck('DNSSEC08', 'DS08', 'DNSKEY');
export const dnssec09 = rrsigCheck('DNSSEC09', 'DS09', 'SOA');
