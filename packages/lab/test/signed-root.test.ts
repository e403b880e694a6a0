// A world with a signed top (the demo's, `lab run --signed-root`): the root and test. signed, test.'s DS
// in the root, and the root's key handed to the lab's open recursors, which then validate the catalogue's
// signed domains from the top and refuse a broken one. Without the option the top stays unsigned, as the
// reference runs in test/reference-findings were recorded.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { RRType, type QueryOptions } from '@app/dns';
import { labProfilePath } from '../src/demo/lab-profile.ts';
import { useLab } from '../src/testing.ts';

const signed = await useLab(['healthy-signed', 'nameserver-quirks', 'wrong-ds'], { signedRoot: true });
const unsigned = await useLab(['single-nameserver']);
const { skip } = signed;
const quick: Omit<QueryOptions, 'signal'> = { timeoutMs: 2000, retries: 1, edns: { udpSize: 1232, do: true } };
const recursor = '198.51.100.65';
const dnscheck = resolve(import.meta.dirname, '../../engine/bin/dnscheck.js');

test('the root and test. are signed, and the root holds a signed DS for test.', { skip }, async () => {
  const rootKeys = await signed.lab.query('a.root-servers.test', { name: '.', type: RRType.DNSKEY }, quick);
  assert.equal(rootKeys.outcome, 'response');
  assert.ok(
    rootKeys.message.answer.some((rr) => rr.type === RRType.RRSIG),
    "the root's DNSKEY RRset is signed",
  );
  const ds = await signed.lab.query('a.root-servers.test', { name: 'test.', type: RRType.DS }, quick);
  assert.equal(ds.outcome, 'response');
  assert.deepEqual(new Set(ds.message.answer.map((rr) => rr.type)), new Set([RRType.DS, RRType.RRSIG]), 'DS for test. with its RRSIG');
  const testKeys = await signed.lab.query('ns1.nic.test', { name: 'test.', type: RRType.DNSKEY }, quick);
  assert.ok(
    testKeys.outcome === 'response' && testKeys.message.answer.some((rr) => rr.type === RRType.RRSIG),
    "test.'s DNSKEY RRset is signed",
  );
});

test("the trust anchor names the root's KSK, and the lab hands it to commands run inside", { skip }, async () => {
  const path = signed.lab.trustAnchorsPath;
  assert.ok(path !== undefined, 'a signed root has a trust anchor');
  assert.match(readFileSync(path, 'utf8'), /^trust-anchors \{\n {2}\. static-ds \d+ 13 2 "[0-9A-F]{64}";\n\};\n$/);
  const env = await signed.lab.exec('sh', ['-c', 'echo "$DNS_TRUST_ANCHORS"']);
  assert.equal(env.stdout.trim(), path);
});

test("a lab recursor validates from the lab's root key: healthy.test secure, wrongds.test refused", { skip }, async () => {
  const path = signed.lab.trustAnchorsPath ?? '';
  const healthy = await signed.lab.exec('delv', ['-a', path, `@${recursor}`, 'healthy.test', 'SOA'], { timeoutMs: 30_000 });
  assert.match(healthy.stdout, /^; fully validated$/m, healthy.stdout + healthy.stderr);
  const dig = await signed.lab.exec('dig', ['+dnssec', '+time=5', `@${recursor}`, 'healthy.test', 'SOA'], { timeoutMs: 30_000 });
  assert.match(dig.stdout, /;; flags: [a-z ]*\bad\b/, 'the recursor itself says the answer is authenticated');
  const broken = await signed.lab.exec('dig', ['+time=5', `@${recursor}`, 'wrongds.test', 'SOA'], { timeoutMs: 30_000 });
  assert.match(broken.stdout, /status: SERVFAIL/, 'a DS that matches no key fails validation');
});

test('healthy.test has no finding at NOTICE or above under the lab profile', { skip }, async () => {
  const run = await signed.lab.exec(
    process.execPath,
    [
      dnscheck,
      'healthy.test',
      '--hints',
      signed.lab.hintsPath,
      '--profile',
      labProfilePath,
      '--json',
      '--level',
      'NOTICE',
      '--no-progress',
    ],
    { timeoutMs: 180_000 },
  );
  assert.equal(run.code, 0, run.stderr.slice(-500));
  assert.deepEqual(
    (JSON.parse(run.stdout) as { level: string; tag: string }[]).map((f) => `${f.level} ${f.tag}`),
    [],
  );
});

test('without signedRoot the root stays unsigned and there is no trust anchor', { skip }, async () => {
  assert.equal(unsigned.lab.trustAnchorsPath, undefined);
  const rootKeys = await unsigned.lab.query('a.root-servers.test', { name: '.', type: RRType.DNSKEY }, quick);
  assert.equal(rootKeys.outcome, 'response');
  assert.deepEqual(rootKeys.message.answer, []);
});
