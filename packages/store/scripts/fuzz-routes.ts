// `npm run fuzz:store -- --minutes N`: the every-route property test (test/hostile-routes.test.ts) for N minutes,
// round after round, each with a new seed and many more cases per route than a test run draws, one database per
// round in turn. Prints each failure's replay command as the test reports it, and the totals at the end.
// Options: --minutes N (required), --runs N (cases per route per round, default 40), --databases sqlite,postgres,mysql.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const TEST_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'hostile-routes.test.ts');
// A round needs about this long to start a store and read its records before the first case.
const SETUP_MS = 60_000;
// How long a round may run past the deadline (the case in flight, the final checks) before it is stopped.
const GRACE_MS = 3 * 60_000;

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    runs: { type: 'string', default: '40' },
    databases: { type: 'string', default: 'sqlite,postgres,mysql' },
  },
});
const minutes = Number(values.minutes);
const runs = Number(values.runs);
if (!(minutes > 0) || !Number.isInteger(runs) || runs < 1) {
  console.error('usage: npm run fuzz:store -- --minutes N [--runs CASES_PER_ROUTE] [--databases sqlite,postgres,mysql]');
  process.exit(2);
}
const databases = values.databases.split(',');

interface Round {
  seed: number;
  database: string;
  cases: number;
  failures: string[];
  exitCode: number | null;
}

function runRound(seed: number, database: string, deadline: number): Promise<Round> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', TEST_FILE], {
      env: {
        ...process.env,
        HOSTILE_SEED: String(seed),
        HOSTILE_RUNS: String(runs),
        HOSTILE_DEADLINE: String(deadline),
        HOSTILE_DATABASES: database,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const round: Round = { seed, database, cases: 0, failures: [], exitCode: null };
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      text += chunk;
      process.stdout.write(chunk);
    });
    const stop = setTimeout(() => child.kill('SIGTERM'), deadline - Date.now() + GRACE_MS);
    child.on('close', (code) => {
      clearTimeout(stop);
      round.exitCode = code;
      for (const [, count] of text.matchAll(/# hostile-routes on .*?: (\d+) cases/g)) round.cases += Number(count);
      round.failures = [...text.matchAll(/^(\S.*: failed after \d+ case[\s\S]*?replay this case only: .*)$/gm)].map((m) => m[1] ?? '');
      resolve(round);
    });
  });
}

const started = Date.now();
const deadline = started + minutes * 60_000;
const rounds: Round[] = [];
while (deadline - Date.now() > SETUP_MS) {
  const database = databases[rounds.length % databases.length] ?? 'sqlite';
  const seed = randomInt(-(2 ** 31), 2 ** 31);
  console.log(
    `\n=== fuzz:store round ${rounds.length + 1} on ${database}, seed ${seed}, ${runs} cases per route, ${Math.round((deadline - Date.now()) / 1000)} s left`,
  );
  rounds.push(await runRound(seed, database, deadline));
}

const cases = rounds.reduce((sum, r) => sum + r.cases, 0);
const failed = rounds.filter((r) => r.exitCode !== 0);
console.log(`\n=== fuzz:store: ${((Date.now() - started) / 60_000).toFixed(1)} minutes, ${rounds.length} rounds, ${cases} cases`);
for (const r of rounds)
  console.log(`  ${r.database} seed ${r.seed}: ${r.cases} cases, ${r.exitCode === 0 ? 'passed' : `FAILED (exit ${String(r.exitCode)})`}`);
for (const r of failed) for (const failure of r.failures) console.log(`\n${failure}`);
process.exit(failed.length > 0 ? 1 : 0);
