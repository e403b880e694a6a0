// The Automation module on lab worlds made for it (test/scenarios/automation/): what a parent should
// publish equals BIND's dnssec-cds verdict (recorded in test/reference-automation/), and each broken
// world is found broken for the reason it was built with.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { useLab } from '@app/lab/testing';
import { oracleParentDs } from './support/automation-oracle.ts';
import { dnscheck, strip, type Finding } from './support/lab-engines.ts';

const dir = resolve(import.meta.dirname, 'scenarios/automation');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const domains = files.map((f) => `${f.slice(0, -'.yaml'.length)}.test.`);
// Bootstrapping validates signals from the root: the world's top is signed.
const shared = await useLab(
  files.map((f) => resolve(dir, f)),
  { signedRoot: true },
);
const { skip } = shared;
const parent = '198.51.100.11';
const schema = JSON.parse(readFileSync(resolve(import.meta.dirname, '../docs/results.schema.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
ajv.addSchema(schema);
const printedShape = ajv.getSchema(`${schema.$id}#/$defs/findings_with_compliance`)!;

interface Printed {
  findings: Finding[];
  parent_ds?: { action: string; ds: string[]; reason: string };
}

const runs = new Map<string, Promise<Printed>>();
function run(domain: string): Promise<Printed> {
  if (!runs.has(domain))
    runs.set(
      domain,
      (async () => {
        const args = [dnscheck, strip(domain), '--hints', shared.lab.hintsPath, '--json', '--level', 'DEBUG', '--profile', 'extended'];
        const result = await shared.lab.exec(process.execPath, [...args, '--test', 'Automation'], { timeoutMs: 180_000 });
        assert.ok(result.stdout.trim().startsWith('{'), `${domain}: ${result.stderr.slice(-400)}`);
        const printed = JSON.parse(result.stdout) as Printed;
        assert.ok(printedShape(printed), `${domain}: ${ajv.errorsText(printedShape.errors)}`);
        return printed;
      })(),
    );
  return runs.get(domain)!;
}
const tags = async (domain: string): Promise<string[]> =>
  (await run(domain)).findings.filter((f) => f.module === 'AUTOMATION').map((f) => f.tag);

const dsDomains = domains.filter(
  (d) =>
    d.startsWith('auto-ds-') ||
    d.startsWith('auto-kasp-') ||
    d.startsWith('auto-policy-') ||
    d.startsWith('auto-multi-') ||
    d.startsWith('auto-csync-'),
);

test(
  'the DS RRset we say a parent should publish equals dnssec-cds, byte for byte, in every signed delegation',
  { skip, timeout: 900_000 },
  async () => {
    let compared = 0;
    for (const domain of dsDomains) {
      const servers = shared.lab.servers.filter((s) => s.zones.some((z) => z.origin === domain)).flatMap((s) => s.addresses);
      const oracle = await oracleParentDs(shared.lab, domain, parent, servers);
      const ours = (await run(domain)).parent_ds;
      assert.ok(ours, `${domain}: no parent_ds`);
      if (oracle.action === 'none' && Object.values(oracle.runs).every((r) => r === '') && ours.action === 'none') continue;
      assert.deepEqual(
        { action: ours.action, ds: ours.ds },
        { action: oracle.action, ds: oracle.ds },
        `${domain}: ${ours.reason} / ${JSON.stringify(oracle.runs)}`,
      );
      compared++;
    }
    assert.ok(compared >= 10, `only ${compared} delegations compared`);
  },
);

const expected: Record<string, string[]> = {
  'auto-ds-publish.test.': ['PARENT_DS_PUBLISH'],
  'auto-ds-unchanged.test.': ['PARENT_DS_UNCHANGED'],
  'auto-ds-no-cds.test.': ['PARENT_DS_NO_CDS'],
  'auto-ds-delete.test.': ['PARENT_DS_REMOVE'],
  'auto-ds-nsd-delete.test.': ['PARENT_DS_REMOVE'],
  'auto-ds-zsk-signed.test.': ['PARENT_DS_NOT_SIGNED_BY_DS_KEY'],
  'auto-ds-cds-unsigned.test.': ['PARENT_DS_NOT_SIGNED_BY_DS_KEY'],
  'auto-ds-unpublished.test.': ['PARENT_DS_BREAKS_CHAIN'],
  'auto-ds-wrong-ds.test.': ['PARENT_DS_DNSKEY_NOT_TRUSTED'],
  'auto-ds-inconsistent.test.': ['PARENT_DS_INCONSISTENT'],
  'auto-ds-knot.test.': ['PARENT_DS_PUBLISH'],
  'auto-kasp-publish.test.': ['PARENT_DS_PUBLISH'],
  'auto-policy-publish.test.': ['PARENT_DS_PUBLISH'],
  'auto-policy-unchanged.test.': ['PARENT_DS_UNCHANGED'],
  'auto-policy-inconsistent.test.': ['PARENT_DS_INCONSISTENT', 'MULTI_SIGNER_CDS_DIFFERS'],
  'auto-multi-signers.test.': ['MULTI_SIGNER_CONSISTENT', 'PARENT_DS_UNCHANGED'],
  'auto-kasp-unchanged.test.': ['PARENT_DS_UNCHANGED'],
  'auto-kasp-no-cds.test.': ['PARENT_DS_NO_CDS'],
  'auto-kasp-inconsistent.test.': ['PARENT_DS_INCONSISTENT'],
  'auto-kasp-wrong-ds.test.': ['PARENT_DS_DNSKEY_NOT_TRUSTED'],
  'auto-kasp-wrong-digest.test.': ['PARENT_DS_DNSKEY_NOT_TRUSTED'],
  'auto-policy-wrong-digest.test.': ['PARENT_DS_DNSKEY_NOT_TRUSTED'],
  'auto-kasp-multi-ok.test.': ['MULTI_SIGNER_CONSISTENT'],
  'auto-boot-ok.test.': ['PARENT_DS_UNSIGNED_DELEGATION', 'BOOTSTRAP_SIGNAL_OK', 'BOOTSTRAP_POSSIBLE'],
  'auto-boot-missing.test.': ['BOOTSTRAP_SIGNAL_OK', 'BOOTSTRAP_SIGNAL_MISSING', 'BOOTSTRAP_NOT_POSSIBLE'],
  'auto-boot-unsigned.test.': ['BOOTSTRAP_SIGNAL_UNSIGNED', 'BOOTSTRAP_NOT_POSSIBLE'],
  'auto-boot-mismatch.test.': ['BOOTSTRAP_SIGNAL_MISMATCH', 'BOOTSTRAP_NOT_POSSIBLE'],
  'auto-boot-bogus.test.': ['BOOTSTRAP_SIGNAL_BOGUS', 'BOOTSTRAP_NOT_POSSIBLE'],
  'auto-boot-in-bailiwick.test.': ['BOOTSTRAP_NS_IN_BAILIWICK', 'BOOTSTRAP_POSSIBLE'],
  'auto-boot-no-cds.test.': ['BOOTSTRAP_NO_CDS'],
  'auto-csync-ok.test.': ['CSYNC_PRESENT', 'CSYNC_COPY'],
  'auto-csync-behind.test.': ['CSYNC_SOA_BEHIND'],
  'auto-csync-unsigned.test.': ['CSYNC_UNSIGNED'],
  'auto-csync-manual.test.': ['CSYNC_NOT_IMMEDIATE', 'CSYNC_UNKNOWN_TYPES'],
  'auto-csync-inconsistent.test.': ['CSYNC_INCONSISTENT'],
  'auto-multi-ok.test.': ['MULTI_SIGNER_CONSISTENT'],
  'auto-multi-dnskey.test.': ['MULTI_SIGNER_DNSKEY_DIFFERS'],
  'auto-multi-cds.test.': ['MULTI_SIGNER_CDS_DIFFERS'],
};

test('each world is found as it was built', { skip, timeout: 900_000 }, async () => {
  const wrong: string[] = [];
  for (const [domain, wanted] of Object.entries(expected)) {
    const found = await tags(domain);
    const missing = wanted.filter((t) => !found.includes(t));
    if (missing.length > 0) wrong.push(`${domain}: lacks ${missing.join(', ')} (found ${found.join(', ')})`);
  }
  assert.deepEqual(wrong, []);
});

test('a bootstrappable delegation gets parent_ds "publish" with the child CDS as DS', { skip, timeout: 300_000 }, async () => {
  const printed = await run('auto-boot-ok.test.');
  assert.equal(printed.parent_ds?.action, 'publish');
  assert.ok((printed.parent_ds?.ds.length ?? 0) > 0);
  assert.match(printed.parent_ds.ds[0], /^auto-boot-ok\.test\. \d+ IN DS \d+ 13 2 [0-9A-F]{64}$/);
});

test('an unsigned zone gets no multi-signer verdict and no DS to publish', { skip, timeout: 300_000 }, async () => {
  const found = await tags('auto-csync-unsigned.test.');
  assert.ok(!found.includes('MULTI_SIGNER_CONSISTENT') && !found.includes('MULTI_SIGNER_DNSKEY_DIFFERS'), found.join(', '));
  assert.equal((await run('auto-csync-unsigned.test.')).parent_ds?.action, 'none');
});
