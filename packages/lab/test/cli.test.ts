// The `lab` command line: run a command in a lab, list the catalogue, clear errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { catalogueNames, commandLineDomain, labUnavailableReason, scenarioDomain } from '../src/index.ts';

const cli = resolve(import.meta.dirname, '../bin/lab.ts');
const lab = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });

const unavailable = await labUnavailableReason();

test("lab run: the command runs inside with the hints path, and its exit code is the lab's", { skip: unavailable ?? false }, () => {
  const ok = lab(
    'run',
    'single-nameserver',
    '--',
    'sh',
    '-c',
    'test "$1" = "$DNS_ROOT_HINTS" && dig +short +norec +time=2 @192.0.2.50 single.test SOA',
    'sh',
    '{hints}',
  );
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^ns1\.single\.test\. hostmaster\.single\.test\. 2024010101 /);
  assert.match(ok.stderr, /lab: \d+ servers up; root hints in \S+root\.hints \(DNS_ROOT_HINTS\)/);
  assert.equal(lab('run', 'single-nameserver', '--', 'sh', '-c', 'exit 7').status, 7);
});

test(
  'lab run --signed-root: the trust anchor is in {trust-anchors} and DNS_TRUST_ANCHORS, and a lab recursor validates with it',
  { skip: unavailable ?? false },
  () => {
    const run = lab(
      'run',
      '--signed-root',
      'healthy-signed,nameserver-quirks',
      '--',
      'sh',
      '-c',
      'test "$1" = "$DNS_TRUST_ANCHORS" && delv -a "$1" @198.51.100.65 healthy.test SOA',
      'sh',
      '{trust-anchors}',
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^; fully validated$/m);
    assert.match(run.stderr, /; trust anchor in \S+trust-anchors\.conf \(DNS_TRUST_ANCHORS\)/);
    const plain = lab('run', 'single-nameserver', '--', 'sh', '-c', 'test -z "$DNS_TRUST_ANCHORS"');
    assert.equal(plain.status, 0, 'without --signed-root there is no trust anchor');
  },
);

test('lab list names every catalogue scenario with the domain it serves and its description', () => {
  const listed = lab('list');
  assert.equal(listed.status, 0);
  // A domain differs from its scenario's name more often than not: a reader must not have to guess it.
  assert.match(listed.stdout, /^wrong-ds\s+wrongds\.test\s+broken DNSSEC — the DS in the parent matches no DNSKEY/m);
  assert.match(listed.stdout, /^bad-soa-timers\s+timers\.test\s+bad SOA timers/m);
  assert.match(listed.stdout, /^root-zone\s+\.\s+the root zone under test$/m);
  const lines = listed.stdout.trim().split('\n');
  assert.equal(lines.length, catalogueNames().length);
  for (const name of catalogueNames()) {
    const line = lines.find((l) => l.startsWith(`${name} `)) ?? '';
    assert.ok(line.includes(` ${commandLineDomain(scenarioDomain(name))} `), `${name}'s line names its domain: ${line}`);
  }
  // Columns line up, so the domains read as one column.
  assert.equal(new Set(lines.map((l) => /^\S+\s+/.exec(l)?.[0].length)).size, 1);
});

test('usage and unknown scenarios get one clear message and exit code 2', () => {
  const usage = lab('run', 'single-nameserver');
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /usage:\n {2}lab run \[--latency 50ms\] \[--signed-root\] <scenario>/);
  const badPort = lab('demo', '--port', 'eighty');
  assert.equal(badPort.status, 2);
  assert.match(badPort.stderr, /^lab demo: --port takes a port number \(1-65535\), not "eighty"/);
  const unknown = lab('run', 'no-such-thing', '--', 'true');
  assert.equal(unknown.status, 2);
  assert.match(
    unknown.stderr,
    unavailable === undefined ? /^lab: unknown scenario "no-such-thing"; the catalogue has: / : /^lab: the DNS lab cannot/,
  );
});
