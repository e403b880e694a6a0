// Zone09's verdict from what each server answered to the MX query (Zone-TP zone09), for the cases a
// lab cannot build too (the root and TLD zones).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mailTargetMessages, type MxOutcome, type MxRecordSeen, type ZonePlace } from '../src/rules/mail-targets.ts';

const ordinary: ZonePlace = { isRoot: false, isTld: false, isArpa: false };
const mx = (preference: number, exchange: string): MxRecordSeen => ({ preference, exchange, key: `example.test 3600 ${preference} ${exchange}` });
const server = (address: string, nsName = `ns-${address}.example.test`) => ({ address, nsName });
const withMx = (address: string, ...records: MxRecordSeen[]): MxOutcome => ({ ...server(address), kind: 'mx', records });
const tags = (outcomes: MxOutcome[], place = ordinary): string[] => mailTargetMessages(outcomes, place).map((m) => m.tag);

test('servers that agree on MX give the mail targets', () => {
  assert.deepEqual(mailTargetMessages([withMx('192.0.2.2', mx(10, 'mail.example.test.')), withMx('192.0.2.1', mx(10, 'mail.example.test.'))], ordinary), [
    { tag: 'Z09_MX_DATA', args: { ns_ip_list: '192.0.2.1;192.0.2.2', mailtarget_list: 'mail.example.test.' } },
  ]);
});

test('a Null MX alone with preference 0 says nothing; otherwise each fault once', () => {
  assert.deepEqual(tags([withMx('192.0.2.1', mx(0, '.'))]), []);
  assert.deepEqual(tags([withMx('192.0.2.1', mx(10, '.'))]), ['Z09_NULL_MX_NON_ZERO_PREF']);
  assert.deepEqual(tags([withMx('192.0.2.1', mx(0, '.'), mx(10, 'mail.example.test.'))]), ['Z09_NULL_MX_WITH_OTHER_MX']);
  assert.deepEqual(tags([withMx('192.0.2.1', mx(10, '.'), mx(20, 'mail.example.test.'))]), ['Z09_NULL_MX_WITH_OTHER_MX', 'Z09_NULL_MX_NON_ZERO_PREF']);
});

test('no MX anywhere: a missing mail target, except for the root, a TLD and reverse zones', () => {
  const none: MxOutcome[] = [{ ...server('192.0.2.1'), kind: 'no-mx' }];
  assert.deepEqual(tags(none), ['Z09_MISSING_MAIL_TARGET']);
  assert.deepEqual(tags(none, { ...ordinary, isTld: true }), []);
  assert.deepEqual(tags(none, { ...ordinary, isRoot: true }), []);
  assert.deepEqual(tags(none, { ...ordinary, isArpa: true }), []);
});

test('the root and a TLD should not take mail', () => {
  assert.deepEqual(tags([withMx('192.0.2.1', mx(10, 'mail.test.'))], { ...ordinary, isTld: true }), ['Z09_TLD_EMAIL_DOMAIN']);
  assert.deepEqual(tags([withMx('192.0.2.1', mx(10, 'mail.test.'))], { ...ordinary, isRoot: true }), ['Z09_ROOT_EMAIL_DOMAIN']);
  assert.deepEqual(tags([withMx('192.0.2.1', mx(0, '.'))], { ...ordinary, isTld: true }), [], 'a Null MX is what a TLD should have');
});

test('servers that disagree: with and without MX, and different MX sets, one line per name server name', () => {
  const outcomes: MxOutcome[] = [
    withMx('192.0.2.1', mx(10, 'a.example.test.')),
    withMx('2001:db8::1', mx(10, 'a.example.test.')),
    { ...server('192.0.2.2'), kind: 'no-mx' },
    withMx('192.0.2.3', mx(10, 'b.example.test.')),
  ];
  outcomes[1] = { ...outcomes[1], nsName: 'ns-192.0.2.1.example.test' };
  assert.deepEqual(mailTargetMessages(outcomes, ordinary), [
    { tag: 'Z09_INCONSISTENT_MX', args: {} },
    { tag: 'Z09_NO_MX_FOUND', args: { ns_ip_list: '192.0.2.2' } },
    { tag: 'Z09_MX_FOUND', args: { ns_ip_list: '192.0.2.1;192.0.2.3;2001:db8::1' } },
    { tag: 'Z09_INCONSISTENT_MX_DATA', args: {} },
    { tag: 'Z09_MX_DATA', args: { mailtarget_list: 'a.example.test.', ns_ip_list: '192.0.2.1;2001:db8::1' } },
    { tag: 'Z09_MX_DATA', args: { mailtarget_list: '', ns_ip_list: '192.0.2.2' } },
    { tag: 'Z09_MX_DATA', args: { mailtarget_list: 'b.example.test.', ns_ip_list: '192.0.2.3' } },
  ]);
});

test('servers that do not answer, answer with an error or without authority are named', () => {
  const outcomes: MxOutcome[] = [
    { ...server('192.0.2.1'), kind: 'no-response' },
    { ...server('192.0.2.2'), kind: 'rcode', rcode: 'SERVFAIL' },
    { ...server('192.0.2.3'), kind: 'rcode', rcode: 'SERVFAIL' },
    { ...server('192.0.2.4'), kind: 'non-authoritative' },
    withMx('192.0.2.5', mx(10, 'mail.example.test.')),
  ];
  assert.deepEqual(mailTargetMessages(outcomes, ordinary), [
    { tag: 'Z09_NO_RESPONSE_MX_QUERY', args: { ns_ip_list: '192.0.2.1' } },
    { tag: 'Z09_UNEXPECTED_RCODE_MX', args: { rcode: 'SERVFAIL', ns_ip_list: '192.0.2.2;192.0.2.3' } },
    { tag: 'Z09_NON_AUTH_MX_RESPONSE', args: { ns_ip_list: '192.0.2.4' } },
    { tag: 'Z09_MX_DATA', args: { ns_ip_list: '192.0.2.5', mailtarget_list: 'mail.example.test.' } },
  ]);
});
