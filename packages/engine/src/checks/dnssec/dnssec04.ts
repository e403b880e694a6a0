import { RRType, typeToString } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { rrsigsIn, now } from './records.ts';
import { specs, gated } from './declaration.ts';

/** The reference's gmtime text: "Wed Dec  3 14:57:48 2026". */
function gmtimeText(seconds: number): string {
  const d = new Date(seconds * 1000);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${day} ${month} ${String(d.getUTCDate()).padStart(2, ' ')} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

/** DNSSEC04: how long the RRSIGs over DNSKEY and SOA have left, and how long they were made to last. */
export const dnssec04: TestCase = {
  id: 'DNSSEC04',
  spec: `${specs}/dnssec04.md`,
  tags: ['RRSIG_EXPIRATION', 'RRSIG_EXPIRED', 'REMAINING_SHORT', 'REMAINING_LONG', 'DURATION_LONG', 'DURATION_OK'],
  ...gated,
  async run({ zone, profile }) {
    const keyResponse = await zone.queryOne(zone.name, RRType.DNSKEY, { dnssec: true });
    if (!keyResponse) return [];
    const soaResponse = await zone.queryOne(zone.name, RRType.SOA, { dnssec: true });
    if (!soaResponse) return [];
    const limits = profile.test_cases_vars.dnssec04 ?? {};
    const short = limits.REMAINING_SHORT ?? 43200;
    const long = limits.REMAINING_LONG ?? 15552000;
    const durationLong = limits.DURATION_LONG ?? 15552000;
    const time = now();
    const messages: Message[] = [];
    for (const sig of [...rrsigsIn(keyResponse), ...rrsigsIn(soaResponse)]) {
      const { expiration, inception, keyTag: keytag } = sig.rdata;
      const types = typeToString(sig.rdata.typeCovered);
      messages.push({ tag: 'RRSIG_EXPIRATION', args: { date: gmtimeText(expiration), keytag, types } });
      const remaining = expiration - time;
      const found: Message[] = [];
      if (remaining < 0) found.push({ tag: 'RRSIG_EXPIRED', args: { expiration, keytag, types } });
      else if (remaining < short) found.push({ tag: 'REMAINING_SHORT', args: { duration: remaining, keytag, types } });
      else if (remaining > long) found.push({ tag: 'REMAINING_LONG', args: { duration: remaining, keytag, types } });
      const duration = expiration - inception;
      if (duration > durationLong) found.push({ tag: 'DURATION_LONG', args: { duration, keytag, types } });
      messages.push(...(found.length > 0 ? found : [{ tag: 'DURATION_OK', args: { duration, keytag, types } }]));
    }
    return messages;
  },
};
