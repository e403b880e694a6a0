// The Automation module's pure rules: CSYNC rdata, serial arithmetic, signal names, providers, DS
// presentation, and the parent_ds verdict read back from findings (as a stored run is).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Name } from '@app/dns';
import { serialBehind } from '../src/checks/automation/automation03.ts';
import { signalName } from '../src/checks/automation/automation02.ts';
import { providerOf } from '../src/checks/automation/automation04.ts';
import { parseCsync } from '../src/checks/automation/csync.ts';
import { dsLine } from '../src/checks/automation/parent-ds.ts';
import type { Finding } from '../src/finding.ts';
import { parentDs } from '../src/run/parent-ds-table.ts';

test('CSYNC rdata: serial, both flags and the type bitmap (RFC 7477 §2.1.1)', () => {
  // serial 2024010101, flags immediate|soaminimum, window 0 with A (1), NS (2) and AAAA (28).
  const rdata = Buffer.from('78a3f175' + '0003' + '0004' + '60000008', 'hex');
  assert.deepEqual(parseCsync(rdata), { serial: 2024010101, immediate: true, soaMinimum: true, otherFlags: 0, types: [1, 2, 28] });
  assert.equal(parseCsync(Buffer.from('0000000000', 'hex')), undefined, 'too short');
  assert.equal(parseCsync(Buffer.from('00000001000000', 'hex')), undefined, 'a window without its length');
  assert.deepEqual(parseCsync(Buffer.from('000000010004', 'hex'))?.otherFlags, 4);
});

test('a server is behind the CSYNC serial by RFC 1982 arithmetic, across the wrap', () => {
  assert.equal(serialBehind(1, 2), true);
  assert.equal(serialBehind(2, 2), false);
  assert.equal(serialBehind(3, 2), false);
  assert.equal(serialBehind(0xffffffff, 1), true, 'just before the wrap is behind 1');
  assert.equal(serialBehind(1, 0xffffffff), false);
});

test('the signalling name of RFC 9615 §3.1, and none when it would be too long', () => {
  assert.equal(
    signalName(Name.fromString('example.test.'), Name.fromString('ns1.provider.test.'))?.toString(),
    '_dsboot.example.test._signal.ns1.provider.test.',
  );
  const long = Name.fromString(`${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.test.`);
  assert.equal(signalName(long, long), undefined);
});

test('a provider is the name server name without its first label', () => {
  assert.equal(providerOf('ns1.provider-a.example./2001:db8::1'), 'provider-a.example.');
  assert.equal(providerOf('ns2.provider-a.example.'), 'provider-a.example.');
});

test('a DS record is printed as a registrar takes it: lower-case owner, upper-case digest in one piece', () => {
  const line = dsLine(Name.fromString('Example.TEST.'), {
    ttl: 3600,
    rdata: { keyTag: 12345, algorithm: 13, digestType: 2, digest: Buffer.from('ab'.repeat(32), 'hex') },
  });
  assert.equal(line, `example.test. 3600 IN DS 12345 13 2 ${'AB'.repeat(32)}`);
});

const finding = (testcase: string, tag: string, args: Finding['args'] = {}): Finding => ({
  module: 'AUTOMATION',
  testcase,
  tag,
  level: 'INFO',
  args,
  timestamp: 0,
});

test('parent_ds is read from the findings: publish with its records, remove, none, and bootstrapping for an unsigned delegation', () => {
  const ds = 'example.test. 3600 IN DS 1 13 2 AA;example.test. 3600 IN DS 2 13 2 BB';
  assert.deepEqual(parentDs([finding('Automation01', 'PARENT_DS_PUBLISH', { count: 2, ds_list: ds })]), {
    action: 'publish',
    ds: ['example.test. 3600 IN DS 1 13 2 AA', 'example.test. 3600 IN DS 2 13 2 BB'],
    reason: 'PARENT_DS_PUBLISH',
  });
  assert.deepEqual(parentDs([finding('Automation01', 'PARENT_DS_REMOVE')])?.action, 'remove');
  assert.deepEqual(parentDs([finding('Automation01', 'PARENT_DS_INCONSISTENT', { ns_list: 'a' })]), {
    action: 'none',
    ds: [],
    reason: 'PARENT_DS_INCONSISTENT',
  });
  const unsigned = finding('Automation01', 'PARENT_DS_UNSIGNED_DELEGATION');
  assert.equal(parentDs([unsigned, finding('Automation02', 'BOOTSTRAP_NOT_POSSIBLE')])?.action, 'none');
  assert.deepEqual(parentDs([unsigned, finding('Automation02', 'BOOTSTRAP_POSSIBLE', { count: 2, ds_list: ds })])?.ds.length, 2);
  assert.equal(parentDs([finding('Automation03', 'CSYNC_ABSENT')]), undefined, 'no verdict without Automation01');
});
