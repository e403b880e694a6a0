// Per domain over the lab catalogue: a whole dnscheck process against a whole zonemaster-cli process
// (8.0.1 with engine 9.0.1, today's reference, from the root that packages/lab/scripts/install-reference.sh makes),
// all nine modules, in the same lab and the same run. Prints wall and CPU time, peak memory, the
// queries ours sent (and identical ones sent twice), its start-up (process start to first query),
// and the wall ratio; the headline is the median ratio, since a silent server costs both engines the
// profile's timeout. Domains where a query timeout was waited out are summed apart.
//   npm run bench:engine [-- [--latency 30ms[,100ms...]] scenario...]
//   --latency makes every lab server wait that long before each answer, as on the Internet; several
//   (0 for none) run one after another, each in a lab of its own, and end with a report per latency:
//   median and slowest domains of both engines, the ratio, the round trips on the critical path of
//   healthy.test (ours: the longest chain of queries each sent after the previous was answered; the
//   reference asks one question at a time, so all of its queries), and the load at start and end.
//   BENCH_REFERENCE_QUERIES=1 also counts the reference's queries, in an extra untimed run at DEBUG.
//   --extended also times ours with the extended profile (Compliance and Transport, beyond the reference)
//   on each domain, right after the default one, and prints extended/default per domain and its median.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  catalogueNames,
  commandLineDomain as strip,
  describeLatency,
  labUnavailableReason,
  parseLatency,
  referenceCommand,
  referenceUnavailableReason,
  scenarioDomain,
  startLab,
  type Lab,
  type Latency,
} from '@app/lab';
import { countQueries, type QueryCounts } from './exchanges.ts';

const dnscheck = resolve(import.meta.dirname, '../../packages/engine/bin/dnscheck.js');
const countReference = process.env.BENCH_REFERENCE_QUERIES === '1';
const extendedFlag = process.argv.includes('--extended');

interface Measure {
  wall: number;
  cpu: number;
  megabytes: number;
}

// GNU time prints the child's elapsed seconds, user and system CPU seconds and peak RSS last on stderr.
async function measure(lab: Lab, command: string, args: string[]): Promise<Measure> {
  const result = await lab.exec('/usr/bin/time', ['-f', 'BENCH %e %U %S %M', command, ...args], { timeoutMs: 10 * 60_000 });
  const line = result.stderr
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('BENCH '));
  if (!line) throw new Error(`${command} gave no timing: ${result.stderr.slice(-300)}`);
  const [wall = 0, user = 0, system = 0, kilobytes = 0] = line.split(' ').slice(1).map(Number);
  return { wall, cpu: user + system, megabytes: kilobytes / 1024 };
}

const ours = (lab: Lab, domain: string, saveTo: string, ...extra: string[]): Promise<Measure> =>
  measure(lab, process.execPath, [
    dnscheck,
    strip(domain),
    '--hints',
    lab.hintsPath,
    '--json',
    '--no-progress',
    '--save',
    saveTo,
    ...extra,
  ]);
const reference = (lab: Lab, domain: string): Promise<Measure> => {
  const [command, ...args] = referenceCommand(lab, ['--hints', '{hints}', '--json', '--no-progress', '--level', 'INFO', strip(domain)]);
  return measure(lab, command, args);
};

/** The reference logs each query it sends (EXTERNAL_QUERY) at DEBUG: counted in a run of its own, untimed. */
async function referenceQueries(lab: Lab, domain: string): Promise<number> {
  const [command, ...args] = referenceCommand(lab, ['--hints', '{hints}', '--raw', '--no-progress', '--level', 'DEBUG', strip(domain)]);
  const result = await lab.exec(command, args, { timeoutMs: 10 * 60_000 });
  return result.stdout.split('\n').filter((line) => /\bEXTERNAL_QUERY\b/.test(line)).length;
}

const reason = (await labUnavailableReason()) ?? referenceUnavailableReason();
if (reason !== undefined) {
  console.log(`bench:engine skipped: ${reason}`);
  process.exit(0);
}

const withDomain = (name: string): boolean => {
  try {
    scenarioDomain(name);
    return true;
  } catch {
    return false;
  }
};
const argv = process.argv.slice(2).filter((arg) => arg !== '--extended');
const latencyAt = argv.indexOf('--latency');
// '0' (or none) for no added latency; a comma list runs each in turn.
const latencies: (Latency | undefined)[] =
  latencyAt >= 0
    ? (argv[latencyAt + 1] ?? '').split(',').map((text) => (Number(text) === 0 ? undefined : parseLatency(text)))
    : [undefined];
const chosen = latencyAt >= 0 ? argv.toSpliced(latencyAt, 2) : argv;
const scenarios = (chosen.length > 0 ? chosen : catalogueNames()).filter(withDomain);
// The healthy zone whose critical path the report counts, when it is among the scenarios.
const healthyScenario = 'healthy-signed';

interface Row {
  scenario: string;
  domain: string;
  ours: Measure;
  reference: Measure;
  queries: QueryCounts;
  referenceQueries?: number;
  /** Ours with --profile extended, and the queries it sent. */
  extended?: Measure;
  extendedQueries?: number;
}

interface Pass {
  latency: Latency | undefined;
  rows: Row[];
  loadStart: string;
  loadEnd: string;
  /** The reference's queries on healthy.test (all sequential), from an untimed run at DEBUG. */
  healthyReferenceQueries?: number;
}

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const sum = (list: Row[], pick: (r: Row) => number): number => list.reduce((acc, r) => acc + pick(r), 0);
const cell = (value: number | string | undefined, width: number, digits = 2): string =>
  (value === undefined ? '-' : typeof value === 'number' ? value.toFixed(digits) : value).padStart(width);
const latencyText = (latency: Latency | undefined): string => (latency ? describeLatency(latency) : 'none');

async function benchAt(latency: Latency | undefined): Promise<Pass> {
  const loadStart = load();
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-'));
  const lab = await startLab(scenarios, { latency });
  const rows: Row[] = [];
  let healthyReferenceQueries: number | undefined;
  try {
    // One untimed run of each first, so neither pays for a cold disk cache or compile cache.
    const first = scenarioDomain(scenarios[0]);
    await ours(lab, first, join(dir, 'warm-up.json'));
    await reference(lab, first);
    for (const scenario of scenarios) {
      const domain = scenarioDomain(scenario);
      const saved = join(dir, `${strip(domain)}.json`);
      // One after the other: the two must not share the machine's cores while timed.
      const mine = await ours(lab, domain, saved);
      const theirs = await reference(lab, domain);
      const row: Row = {
        scenario,
        domain: strip(domain),
        ours: mine,
        reference: theirs,
        queries: countQueries(readFileSync(saved, 'utf8')),
      };
      if (extendedFlag) {
        const savedExtended = join(dir, `${strip(domain)}-extended.json`);
        row.extended = await ours(lab, domain, savedExtended, '--profile', 'extended');
        row.extendedQueries = countQueries(readFileSync(savedExtended, 'utf8')).queries;
      }
      if (countReference) row.referenceQueries = await referenceQueries(lab, domain);
      if (scenario === healthyScenario) healthyReferenceQueries = row.referenceQueries ?? (await referenceQueries(lab, domain));
      rows.push(row);
      process.stderr.write(`bench:engine ${latencyText(latency)} ${rows.length}/${scenarios.length} ${row.domain}\n`);
    }
  } finally {
    await lab.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { latency, rows, loadStart, loadEnd: load(), ...(healthyReferenceQueries !== undefined && { healthyReferenceQueries }) };
}

function printPass({ latency, rows, loadStart, loadEnd }: Pass): void {
  console.log(
    `\nbench:engine — ${rows.length} lab domains, all nine modules, one process per domain per engine; ${latency ? `every answer after ${describeLatency(latency)}` : 'no added latency'}`,
  );
  console.log(
    `${'domain'.padEnd(32)}${'wall s'.padStart(8)}${'ref s'.padStart(8)}${'ratio'.padStart(7)}${'cpu s'.padStart(7)}${'ref cpu'.padStart(8)}${'MB'.padStart(6)}${'ref MB'.padStart(7)}` +
      `${'start ms'.padStart(9)}${'queries'.padStart(8)}${'dups'.padStart(5)}${countReference ? 'ref q'.padStart(7) : ''}${'waits'.padStart(6)}${'rtts'.padStart(6)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.domain.slice(0, 31).padEnd(32)}${cell(r.ours.wall, 8)}${cell(r.reference.wall, 8)}${cell(r.ours.wall / r.reference.wall, 7)}${cell(r.ours.cpu, 7)}${cell(r.reference.cpu, 8)}` +
        `${cell(r.ours.megabytes, 6, 0)}${cell(r.reference.megabytes, 7, 0)}${cell(r.queries.firstQueryMs, 9, 0)}${cell(r.queries.queries, 8, 0)}${cell(r.queries.duplicates, 5, 0)}` +
        `${countReference ? cell(r.referenceQueries, 7, 0) : ''}${cell(r.queries.timeouts, 6, 0)}${cell(r.queries.sequentialRoundTrips, 6, 0)}`,
    );
  }
  console.log(
    '(waits: queries of ours that waited out the timeout; start ms: process start to first query; rtts: our longest chain of queries each sent after the previous was answered)',
  );

  const ratios = rows.map((r) => r.ours.wall / r.reference.wall);
  console.log(
    `\nHEADLINE median wall ratio per domain: ${median(ratios).toFixed(3)} (goal: at most 0.2); median wall ours ${median(rows.map((r) => r.ours.wall)).toFixed(2)} s, zonemaster-cli ${median(rows.map((r) => r.reference.wall)).toFixed(2)} s`,
  );
  const waited = rows.filter((r) => r.queries.timeouts > 0);
  const quick = rows.filter((r) => r.queries.timeouts === 0);
  for (const [label, part] of [
    ['all domains', rows],
    ['no timeout waited out', quick],
    ['a timeout waited out', waited],
  ] as const) {
    if (part.length === 0) continue;
    const mine = sum(part, (r) => r.ours.wall);
    const theirs = sum(part, (r) => r.reference.wall);
    console.log(
      `total, ${label.padEnd(22)} ${String(part.length).padStart(3)} domains: ours ${mine.toFixed(2)} s, zonemaster-cli ${theirs.toFixed(2)} s, ratio ${(mine / theirs).toFixed(3)}, median ratio ${median(part.map((r) => r.ours.wall / r.reference.wall)).toFixed(3)}`,
    );
  }
  const extendedRows = rows.filter((r) => r.extended !== undefined);
  if (extendedRows.length > 0) {
    console.log(`\nextended profile (Compliance and Transport, beyond the reference) against the default one, ours both:`);
    console.log(
      `${'domain'.padEnd(32)}${'default s'.padStart(10)}${'extended s'.padStart(11)}${'ratio'.padStart(7)}${'queries'.padStart(9)}${'ext q'.padStart(7)}`,
    );
    for (const r of extendedRows) {
      console.log(
        `${r.domain.slice(0, 31).padEnd(32)}${cell(r.ours.wall, 10)}${cell(r.extended!.wall, 11)}${cell(r.extended!.wall / r.ours.wall, 7, 3)}${cell(r.queries.queries, 9, 0)}${cell(r.extendedQueries, 7, 0)}`,
      );
    }
    const extendedRatios = extendedRows.map((r) => r.extended!.wall / r.ours.wall);
    console.log(
      `EXTENDED median wall ratio extended/default per domain: ${median(extendedRatios).toFixed(3)} (goal: at most 1.2), worst ${Math.max(...extendedRatios).toFixed(3)}; total ${(sum(extendedRows, (r) => r.extended!.wall) / sum(extendedRows, (r) => r.ours.wall)).toFixed(3)}`,
    );
  }
  if (waited.length > 0)
    console.log(`domains where a timeout was waited out: ${waited.map((r) => `${r.domain} (${r.queries.timeouts})`).join(', ')}`);
  console.log(
    `CPU: ours ${sum(rows, (r) => r.ours.cpu).toFixed(2)} s, zonemaster-cli ${sum(rows, (r) => r.reference.cpu).toFixed(2)} s, ratio ${(sum(rows, (r) => r.ours.cpu) / sum(rows, (r) => r.reference.cpu)).toFixed(3)}`,
  );
  console.log(
    `peak memory per run: ours ${median(rows.map((r) => r.ours.megabytes)).toFixed(1)} MB, zonemaster-cli ${median(rows.map((r) => r.reference.megabytes)).toFixed(1)} MB (median)`,
  );
  const starts = rows.flatMap((r) => (r.queries.firstQueryMs === undefined ? [] : [r.queries.firstQueryMs]));
  console.log(`start-up (process start to first query): median ${median(starts).toFixed(0)} ms, max ${Math.max(...starts).toFixed(0)} ms`);
  const duplicates = sum(rows, (r) => r.queries.duplicates);
  console.log(
    `queries: ours ${sum(rows, (r) => r.queries.queries)}${countReference ? `, zonemaster-cli ${sum(rows, (r) => r.referenceQueries ?? 0)}` : ''}; identical questions sent twice: ${duplicates} (goal 0)`,
  );
  for (const r of rows) for (const line of r.queries.repeated) console.log(`  duplicate in ${r.domain}: ${line}`);
  console.log(`load (1, 5, 15 min): ${loadStart} at start, ${loadEnd} at end`);
}

const slowest = (rows: Row[], pick: (r: Row) => number): string =>
  [...rows]
    .sort((a, b) => pick(b) - pick(a))
    .slice(0, 3)
    .map((r) => `${r.domain} ${pick(r).toFixed(2)}`)
    .join(', ');

/** One paragraph per latency: what issue 41 asks the note to give. */
function printReport(passes: Pass[]): void {
  console.log('\nREPORT per latency (wall seconds per domain; goal at 100 ms: median ratio at most 0.1, and no worse than at 30 ms)');
  for (const { latency, rows, loadStart, loadEnd, healthyReferenceQueries } of passes) {
    const healthy = rows.find((r) => r.scenario === healthyScenario);
    console.log(`latency ${latencyText(latency)}: ${rows.length} domains, load ${loadStart} at start, ${loadEnd} at end`);
    console.log(
      `  median: ours ${median(rows.map((r) => r.ours.wall)).toFixed(2)}, zonemaster-cli ${median(rows.map((r) => r.reference.wall)).toFixed(2)}; median ratio ${median(rows.map((r) => r.ours.wall / r.reference.wall)).toFixed(3)}`,
    );
    console.log(`  slowest ours: ${slowest(rows, (r) => r.ours.wall)}`);
    console.log(`  slowest zonemaster-cli: ${slowest(rows, (r) => r.reference.wall)}`);
    if (healthy) {
      console.log(
        `  healthy.test: ours ${healthy.ours.wall.toFixed(2)} s, ${healthy.queries.queries} queries, ${healthy.queries.sequentialRoundTrips} round trips on the critical path; ` +
          `zonemaster-cli ${healthy.reference.wall.toFixed(2)} s, ${healthyReferenceQueries ?? '?'} queries, one at a time`,
      );
    }
  }
}

const passes: Pass[] = [];
for (const latency of latencies) {
  const pass = await benchAt(latency);
  printPass(pass);
  passes.push(pass);
}
printReport(passes);
