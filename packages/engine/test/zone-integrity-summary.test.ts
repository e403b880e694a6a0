// The zone_integrity summary made from findings: the worst result per server stands, a disagreement
// between servers fails the zone, and NSEC3 is never called listable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Finding } from '../src/finding.ts';
import { zoneIntegrityLines, zoneIntegritySummary } from '../src/run/zone-integrity-summary.ts';

const finding = (testcase: string, tag: string, args: Finding['args'] = {}): Finding => ({
  module: 'ZONE_INTEGRITY',
  testcase,
  tag,
  level: 'INFO',
  args,
  timestamp: 0,
});
const ns1 = 'ns1.example/192.0.2.1';
const ns2 = 'ns2.example/192.0.2.2';

test('no ZONE_INTEGRITY findings, no summary (the default profile)', () => {
  assert.equal(zoneIntegritySummary([{ ...finding('Basic01', 'B01_PARENT_FOUND'), module: 'BASIC' }]), undefined);
});

test('a server with one matching and one wrong record counts as wrong; servers that differ fail the zone', () => {
  const summary = zoneIntegritySummary([
    finding('ZoneIntegrity01', 'ZONEMD_DIFFERS', { ns_list: ns1, zonemd: 'a' }),
    finding('ZoneIntegrity01', 'ZONEMD_DIGEST_VERIFIED', { ns: ns1 }),
    finding('ZoneIntegrity01', 'ZONEMD_DIGEST_VERIFIED', { ns: ns2 }),
    finding('ZoneIntegrity01', 'ZONEMD_SERIAL_MISMATCH', { ns: ns2 }),
  ]);
  assert.deepEqual(summary?.zonemd, {
    verdict: 'failed',
    same_on_all_servers: false,
    servers: [
      { ns: 'ns1.example', address: '192.0.2.1', result: 'verified' },
      { ns: 'ns2.example', address: '192.0.2.2', result: 'serial_mismatch' },
    ],
  });
});

test('only unknown algorithms: not verifiable; no transfer anywhere: not transferred', () => {
  const unknown = zoneIntegritySummary([finding('ZoneIntegrity01', 'ZONEMD_NOT_VERIFIABLE', { ns: ns1 })]);
  assert.equal(unknown?.zonemd?.verdict, 'not_verifiable');
  const none = zoneIntegritySummary([finding('ZoneIntegrity01', 'ZONEMD_NO_TRANSFER', { ns_list: `${ns1};${ns2}` })]);
  assert.equal(none?.zonemd?.verdict, 'not_transferred');
  assert.deepEqual(
    none?.zonemd?.servers.map((s) => s.result),
    ['refused', 'refused'],
  );
});

test('NSEC is listable, NSEC3 is not, and the text lines say so', () => {
  const nsec = zoneIntegritySummary([finding('ZoneIntegrity02', 'NSEC_WALK_LIMIT', { names: 200 })]);
  assert.deepEqual(nsec?.walk, { denial: 'nsec', listable: true, names: 200, complete: false, hashes: [] });
  assert.deepEqual(zoneIntegrityLines(nsec), ['walk: nsec, listable: true, 200 names or more']);
  const nsec3 = zoneIntegritySummary([
    finding('ZoneIntegrity02', 'NSEC3_HASHED_NAMES', { iterations: 5, salt: 'ab', opt_out: true }),
    finding('ZoneIntegrity02', 'NSEC3_HASH_COVERED', { name: 'x.example', hash: 'abc' }),
  ]);
  assert.deepEqual(nsec3?.walk, {
    denial: 'nsec3',
    listable: false,
    nsec3: { iterations: 5, salt: 'ab', opt_out: true, as_rfc9276_advises: false },
    hashes: [{ name: 'x.example', hash: 'abc' }],
  });
});
