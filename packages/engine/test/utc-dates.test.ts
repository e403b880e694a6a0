// Dates in findings are written from a table (src/catalogue/utc-dates.ts) so a run need not start ICU;
// the table must write exactly what Intl.DateTimeFormat writes, in every locale of the catalogue.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { locales } from '../src/catalogue/catalogue.ts';
import { intlOptions, utcDate } from '../src/catalogue/utc-dates.ts';

// Every month, every hour (midnight and noon for the 12-hour clock), single- and two-digit days and minutes.
const times: number[] = [];
for (let month = 0; month < 12; month++) {
  for (let hour = 0; hour < 24; hour++) times.push(Date.UTC(2020 + (month % 7), month, 1 + ((hour * 7) % 28), hour, (hour * 13) % 60, 59));
}
times.push(Date.UTC(1970, 0, 1, 0, 0, 0), Date.UTC(2106, 1, 7, 6, 28, 15), Date.UTC(2038, 0, 19, 3, 14, 7));

for (const locale of locales) {
  test(`dates in ${locale} read as Intl writes them`, () => {
    const intl = new Intl.DateTimeFormat(locale, intlOptions);
    for (const time of times) assert.equal(utcDate(time, locale), intl.format(time), new Date(time).toISOString());
  });
}

test('a locale the table lacks is written by Intl', () => {
  const time = Date.UTC(2026, 10, 26, 13, 45);
  assert.equal(utcDate(time, 'de'), new Intl.DateTimeFormat('de', intlOptions).format(time));
});

test("a finding's date is rendered in the reader's language", async () => {
  const { formatFinding } = await import('../src/catalogue/catalogue.ts');
  const finding = {
    module: 'DNSSEC',
    testcase: 'DNSSEC04',
    tag: 'RRSIG_EXPIRATION',
    level: 'INFO' as const,
    args: { keytag: 1, types: 'SOA', date: 'Thu Nov 26 13:45:00 2026' },
    timestamp: 0,
  };
  assert.match(formatFinding(finding, 'en'), /November 26, 2026 at 01:45 PM UTC/);
  assert.match(formatFinding(finding, 'fi'), /26\. marraskuuta 2026 klo 13\.45 UTC/);
});
