// Zone09's verdict from what each server answered to the MX query (Zone-TP zone09, as engine 9.0
// judges it), for the cases a lab cannot build too (the root, TLD and .arpa zones).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mailTargetMessages, type MxOutcome, type MxRecordSeen, type ZonePlace } from '../src/rules/mail-targets.ts';

const ordinary: ZonePlace = { isRoot: false, isTld: false, isArpa: false };
const mx = (preference: number, exchange: string): MxRecordSeen => ({ preference, exchange });
const ns = (n: number): string => `ns${n}.example.test/192.0.2.${n}`;
const withMx = (n: number, ...records: MxRecordSeen[]): MxOutcome => ({ ns: ns(n), kind: 'mx', records });
const tags = (outcomes: MxOutcome[], place = ordinary): string[] => mailTargetMessages(outcomes, place).map((m) => m.tag);

test('servers that agree on MX give the MX data once, records by preference and without repeats', () => {
  assert.deepEqual(
    mailTargetMessages(
      [
        withMx(2, mx(20, 'b.example.test.'), mx(10, 'mail.example.test.'), mx(10, 'mail.example.test.')),
        withMx(1, mx(10, 'mail.example.test.'), mx(20, 'b.example.test.')),
      ],
      ordinary,
    ),
    [{ tag: 'Z09_MX_DATA', args: { ns_list: `${ns(1)};${ns(2)}`, mxrdata_list: '10 mail.example.test;20 b.example.test' } }],
  );
});

test('a Null MX alone with preference 0 is valid; otherwise the first fault is named', () => {
  assert.deepEqual(tags([withMx(1, mx(0, '.'))]), ['Z09_MX_DATA', 'Z09_VALID_NULL_MX']);
  assert.equal(mailTargetMessages([withMx(1, mx(0, '.'))], ordinary)[0].args.mxrdata_list, '0 .');
  assert.deepEqual(tags([withMx(1, mx(10, '.'))]), ['Z09_MX_DATA', 'Z09_NULL_MX_NON_ZERO_PREF']);
  assert.deepEqual(tags([withMx(1, mx(0, '.'), mx(10, 'mail.example.test.'))]), ['Z09_MX_DATA', 'Z09_NULL_MX_WITH_OTHER_MX']);
  assert.deepEqual(tags([withMx(1, mx(10, '.'), mx(20, 'mail.example.test.'))]), ['Z09_MX_DATA', 'Z09_NULL_MX_WITH_OTHER_MX']);
});

test('no MX anywhere: a missing mail exchange, except for the root, a TLD and reverse zones, where none is expected', () => {
  const none: MxOutcome[] = [withMx(1), withMx(2)];
  assert.deepEqual(mailTargetMessages(none, ordinary), [{ tag: 'Z09_MISSING_MAIL_EXCHANGE', args: { ns_list: `${ns(1)};${ns(2)}` } }]);
  for (const place of [{ isTld: true }, { isRoot: true }, { isArpa: true }])
    assert.deepEqual(tags(none, { ...ordinary, ...place }), ['Z09_NO_MX_FOUND_OR_EXPECTED']);
});

test('the root, a TLD and a reverse zone should not take mail', () => {
  assert.deepEqual(tags([withMx(1, mx(10, 'mail.test.'))], { ...ordinary, isTld: true }), ['Z09_MX_DATA', 'Z09_TLD_EMAIL_DOMAIN']);
  assert.deepEqual(tags([withMx(1, mx(10, 'mail.test.'))], { ...ordinary, isRoot: true }), ['Z09_MX_DATA', 'Z09_ROOT_EMAIL_DOMAIN']);
  assert.deepEqual(tags([withMx(1, mx(10, 'mail.test.'))], { ...ordinary, isArpa: true }), ['Z09_MX_DATA', 'Z09_ARPA_EMAIL_DOMAIN']);
  assert.deepEqual(
    tags([withMx(1, mx(0, '.'))], { ...ordinary, isTld: true }),
    ['Z09_MX_DATA', 'Z09_VALID_NULL_MX'],
    'a Null MX is what a TLD should have',
  );
});

test('servers that disagree: with and without MX, and different MX sets, one line per set', () => {
  const outcomes: MxOutcome[] = [
    withMx(1, mx(10, 'a.example.test.')),
    withMx(4, mx(10, 'a.example.test.')),
    withMx(2),
    withMx(3, mx(10, 'b.example.test.')),
  ];
  assert.deepEqual(mailTargetMessages(outcomes, ordinary), [
    { tag: 'Z09_MX_DATA', args: { ns_list: `${ns(1)};${ns(4)}`, mxrdata_list: '10 a.example.test' } },
    { tag: 'Z09_MX_DATA', args: { ns_list: ns(3), mxrdata_list: '10 b.example.test' } },
    { tag: 'Z09_INCONSISTENT_MX', args: {} },
    { tag: 'Z09_NO_MX_FOUND', args: { ns_list: ns(2) } },
    { tag: 'Z09_MX_FOUND', args: { ns_list: `${ns(1)};${ns(3)};${ns(4)}` } },
    { tag: 'Z09_INCONSISTENT_MX_DATA', args: {} },
  ]);
});

test('servers that do not answer, answer with an error or without authority are named', () => {
  const outcomes: MxOutcome[] = [
    { ns: ns(1), kind: 'no-response' },
    { ns: ns(3), kind: 'rcode', rcode: 'SERVFAIL' },
    { ns: ns(2), kind: 'rcode', rcode: 'SERVFAIL' },
    { ns: ns(4), kind: 'non-authoritative' },
    withMx(5, mx(10, 'mail.example.test.')),
  ];
  assert.deepEqual(mailTargetMessages(outcomes, ordinary), [
    { tag: 'Z09_NO_RESPONSE_MX_QUERY', args: { ns_list: ns(1) } },
    { tag: 'Z09_UNEXPECTED_RCODE_MX', args: { rcode: 'SERVFAIL', ns_list: `${ns(2)};${ns(3)}` } },
    { tag: 'Z09_NON_AUTH_MX_RESPONSE', args: { ns_list: ns(4) } },
    { tag: 'Z09_MX_DATA', args: { ns_list: ns(5), mxrdata_list: '10 mail.example.test' } },
  ]);
  assert.deepEqual(tags(outcomes.slice(0, 4)), [
    'Z09_NO_RESPONSE_MX_QUERY',
    'Z09_UNEXPECTED_RCODE_MX',
    'Z09_NON_AUTH_MX_RESPONSE',
    'Z09_NO_SERVERS_MX_RESPONSE',
  ]);
  assert.deepEqual(tags([]), ['Z09_NO_SERVERS_MX_RESPONSE'], 'no server gave SOA with authority');
});
