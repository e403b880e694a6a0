// `npm run fuzz:contract -- --minutes N`: the contract run (test/contract-run.test.ts) for N minutes, round after
// round, each with a new seed and more cases per operation than a test run draws, one database per round in
// turn. Prints every mismatch with the request that found it, and the totals at the end.
// Options: --minutes N (required), --runs N (cases per operation per round, default 20), --databases sqlite,postgres,mysql.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const TEST_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'contract-run.test.ts');

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    runs: { type: 'string', default: '20' },
    databases: { type: 'string', default: 'sqlite,postgres,mysql' },
  },
});
const minutes = Number(values.minutes);
const runs = Number(values.runs);
if (!(minutes > 0) || !Number.isInteger(runs) || runs < 1) {
  console.error('usage: npm run fuzz:contract -- --minutes N [--runs CASES_PER_OPERATION] [--databases sqlite,postgres,mysql]');
  process.exit(2);
}
const databases = values.databases.split(',');
const dir = mkdtempSync(join(tmpdir(), 'fuzz-contract-'));
const report = join(dir, 'mismatches.txt');
const deadline = Date.now() + minutes * 60_000;
let rounds = 0;
let cases = 0;
while (Date.now() < deadline) {
  const seed = randomInt(-(2 ** 31), 2 ** 31);
  const database = databases[rounds % databases.length] ?? 'sqlite';
  rounds += 1;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', TEST_FILE], {
    env: {
      ...process.env,
      CONTRACT_SEED: String(seed),
      CONTRACT_RUNS: String(runs),
      CONTRACT_DEADLINE: String(deadline),
      CONTRACT_DATABASES: database,
      CONTRACT_REPORT: report,
    },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  for (const [, count] of run.stdout.matchAll(/# contract-run on .*?: (\d+) cases/g)) cases += Number(count);
  console.log(`round ${rounds}: ${database}, seed ${seed}, exit ${run.status}`);
}
let found = '';
try {
  found = readFileSync(report, 'utf8');
} catch {
  // No round found a mismatch, so none wrote the report.
}
if (found !== '') console.log(found);
const mismatches = found.split('\n').filter((line) => line !== '' && !line.startsWith('    ')).length;
console.log(`${rounds} rounds, ${cases} cases, ${mismatches} mismatches`);
rmSync(dir, { recursive: true, force: true });
process.exitCode = mismatches === 0 ? 0 : 1;
