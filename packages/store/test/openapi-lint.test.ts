// The served openapi.json passes Spectral's OpenAPI ruleset and Redocly's recommended rules with no error and
// no warning; what each ruleset turns off is written, with its reason, in .spectral.yaml and redocly.yaml.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { sqliteTarget } from './support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`../../../node_modules/.bin/${name}`, import.meta.url));
// Redocly would otherwise report usage and look for updates over the network.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** A linter's findings: both exit non-zero when they find any, and still print them. */
async function findings(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { cwd: packageDir, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (stdout === undefined || stdout === '') throw error;
    return stdout;
  }
}

describe('the served OpenAPI document under Spectral and Redocly', () => {
  let s: StoreUnderTest;
  let dir: string;
  let documentFile: string;
  before(async () => {
    s = await startStoreUnderTest(await sqliteTarget());
    dir = mkdtempSync(join(tmpdir(), 'store-openapi-lint-'));
    documentFile = join(dir, 'openapi.json');
    const reply = await s.call('GET', '/openapi.json');
    assert.equal(reply.status, 200);
    writeFileSync(documentFile, reply.text);
  });
  after(async () => {
    await s?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('Spectral (spectral:oas, .spectral.yaml): 0 errors, 0 warnings', async () => {
    const out = await findings(bin('spectral'), [
      'lint',
      documentFile,
      '--ruleset',
      join(packageDir, '.spectral.yaml'),
      '--format',
      'json',
      '--quiet',
    ]);
    const problems = JSON.parse(out === '' ? '[]' : out) as { code: string; severity: number; path: string[]; message: string }[];
    // Severity 0 is an error, 1 a warning.
    const shown = problems.filter((p) => p.severity <= 1).map((p) => `${p.code} ${p.path.join('/')}: ${p.message}`);
    assert.deepEqual(shown.slice(0, 20), [], `${shown.length} findings`);
  });

  test('Redocly (recommended, redocly.yaml): 0 errors, 0 warnings', async () => {
    const out = await findings(bin('redocly'), [
      'lint',
      documentFile,
      '--config',
      join(packageDir, 'redocly.yaml'),
      '--format',
      'json',
      '--max-problems',
      '100000',
    ]);
    const report = JSON.parse(out) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const shown = report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    assert.deepEqual(shown.slice(0, 20), [], `${shown.length} findings`);
    assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
  });
});
