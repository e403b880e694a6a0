// dnscheck's JSON against docs/results.schema.json on real name servers: --json (with and without
// --raw, down to DEBUG3), --json-run, and --json-run of a saved run shown again.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { labUnavailableReason, startLab, type Lab } from '@app/lab';

const dnscheck = resolve(import.meta.dirname, '../packages/engine/bin/dnscheck.js');
const schema = JSON.parse(readFileSync(resolve(import.meta.dirname, '../docs/results.schema.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
ajv.addSchema(schema);
const skipReason = await labUnavailableReason();

function assertValid(kind: 'findings' | 'findings_with_compliance' | 'run', value: unknown): void {
  const validate = ajv.getSchema(`${schema.$id}#/$defs/${kind}`)!;
  assert.ok(validate(value), `${kind}: ${ajv.errorsText(validate.errors, { separator: '\n' })}`);
}

describe('dnscheck JSON output against the schema, in the lab', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  const json = async (args: string[]): Promise<unknown> => {
    const { stdout, stderr } = await lab.exec(process.execPath, [dnscheck, ...args, '--hints', lab.hintsPath, '--no-progress'], {
      timeoutMs: 120_000,
    });
    try {
      return JSON.parse(stdout);
    } catch {
      assert.fail(`not JSON: ${stdout.slice(0, 200)} ${stderr.slice(-300)}`);
    }
  };

  before(async () => {
    lab = await startLab(['healthy-signed', 'lame-delegation']);
  });
  after(async () => {
    await lab?.stop();
  });

  test('--json, every level and --raw, on a healthy and a lame zone', async () => {
    for (const domain of ['healthy.test', 'lame.test']) {
      const all = (await json([domain, '--json', '--level', 'DEBUG3'])) as { level: string; message?: string }[];
      assertValid('findings', all);
      assert.ok(all.some((f) => f.level.startsWith('DEBUG')) && all.every((f) => typeof f.message === 'string'));
      const raw = (await json([domain, '--json', '--raw'])) as { message?: string }[];
      assertValid('findings', raw);
      assert.ok(raw.length > 0 && raw.every((f) => f.message === undefined));
    }
  });

  test('--profile extended: --json puts the compliance table beside the findings, one entry per address; the default profile prints the array it always did', async () => {
    const extended = (await json(['healthy.test', '--json', '--profile', 'extended'])) as {
      findings: { module: string }[];
      compliance: { ns: string; address: string; tests: Record<string, string> }[];
    };
    assertValid('findings_with_compliance', extended);
    assert.deepEqual(extended.compliance.map((e) => `${e.ns}/${e.address}`).sort(), [
      'ns1.healthy.test/192.0.2.10',
      'ns1.healthy.test/2001:db8:10::1',
      'ns2.healthy.test/2001:db8:1740::10',
      'ns2.healthy.test/203.0.113.10',
    ]);
    for (const entry of extended.compliance) {
      assert.equal(Object.keys(entry.tests).length, 35, `${entry.ns}: genreport's EDNS and FULL tests, signed, dnswkk, bind11 and dig11`);
      assert.equal(entry.tests.edns, 'ok');
      assert.equal(entry.tests.signed, 'ok,yes');
    }
    const plain = (await json(['healthy.test', '--json'])) as { module: string }[];
    assertValid('findings', plain);
    assert.ok(Array.isArray(plain) && !plain.some((f) => f.module === 'COMPLIANCE'));
    const run = (await json(['healthy.test', '--json-run', '--profile', 'extended', '--raw'])) as { compliance: unknown[] };
    assertValid('run', run);
    assert.equal(run.compliance.length, 4);
  });

  test('--json-run: engine version, domain, elapsed time and the findings; a saved run shown again is valid too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dnscheck-schema-'));
    const saved = join(dir, 'lame.json');
    const run = (await json(['lame.test', '--json-run', '--locale', 'fi', '--save', saved])) as {
      engine_version: string;
      domain: string;
      elapsed: number;
      findings: { tag: string }[];
    };
    assertValid('run', run);
    assert.equal(run.domain, 'lame.test');
    assert.ok(run.elapsed > 0);
    const version = await lab.exec(process.execPath, [dnscheck, '--version'], { timeoutMs: 30_000 });
    assert.match(version.stdout, new RegExp(`^dnscheck ${run.engine_version.replaceAll('.', '\\.')}$`, 'm'));
    const { stdout } = await lab.exec(process.execPath, [dnscheck, '--restore', saved, '--json-run', '--locale', 'fi'], {
      timeoutMs: 30_000,
    });
    const restored = JSON.parse(stdout) as typeof run;
    assertValid('run', restored);
    assert.deepEqual(restored.findings, run.findings);
    assert.equal(restored.engine_version, run.engine_version);
  });
});
