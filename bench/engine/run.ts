// Wall time and memory per domain over the lab catalogue: our dnscheck against Debian's
// zonemaster-cli, in the same lab and the same run. Prints one row per domain and the overall ratio.
//   npm run bench:engine [-- scenario...]
import { basename, resolve } from 'node:path';
import { testCaseIds } from '@app/engine';
import { catalogueNames, labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';

const dnscheck = resolve(import.meta.dirname, '../../packages/engine/bin/dnscheck.js');
const strip = (domain: string): string => domain.replace(/\.$/, '');

// Both engines run the same modules: all nine once ours has them, until then the ones it has.
const implemented = [...new Set(testCaseIds().map((id) => id.replace(/\d+$/, '')))];
const selection = implemented.length >= 9 ? [] : implemented.flatMap((module) => ['--test', module]);

interface Measure {
  seconds: number;
  megabytes: number;
}

// GNU time prints elapsed seconds and peak memory of the child on the last stderr line.
async function measure(lab: Lab, command: string, args: string[]): Promise<Measure> {
  const result = await lab.exec('/usr/bin/time', ['-f', 'BENCH %e %M', command, ...args], { timeoutMs: 10 * 60_000 });
  const line = result.stderr.split('\n').reverse().find((l) => l.startsWith('BENCH '));
  if (!line) throw new Error(`${command} gave no timing: ${result.stderr.slice(-300)}`);
  const [, seconds = '0', kilobytes = '0'] = line.split(' ');
  return { seconds: Number(seconds), megabytes: Number(kilobytes) / 1024 };
}

const ours = (lab: Lab, domain: string): Promise<Measure> => measure(lab, process.execPath, [dnscheck, strip(domain), '--hints', lab.hintsPath, '--json', ...selection]);
const reference = (lab: Lab, domain: string): Promise<Measure> =>
  measure(lab, 'zonemaster-cli', ['--hints', lab.hintsPath, '--json', '--no-progress', '--level', 'INFO', ...selection, strip(domain)]);

const reason = await labUnavailableReason();
if (reason !== undefined) {
  console.log(`bench:engine skipped: ${reason}`);
  process.exit(0);
}

const chosen = process.argv.slice(2);
const scenarios = (chosen.length > 0 ? chosen : catalogueNames()).filter((name) => {
  try {
    scenarioDomain(name);
    return true;
  } catch {
    return false;
  }
});
const lab = await startLab(scenarios);
const rows: { scenario: string; domain: string; ours: Measure; reference: Measure }[] = [];
try {
  // One untimed run of each first, so neither pays for a cold disk cache or compile cache.
  const first = scenarioDomain(scenarios[0]);
  await ours(lab, first);
  await reference(lab, first);
  for (const scenario of scenarios) {
    const domain = scenarioDomain(scenario);
    // One after the other: the two must not share the machine's cores while timed.
    const mine = await ours(lab, domain);
    const theirs = await reference(lab, domain);
    rows.push({ scenario, domain, ours: mine, reference: theirs });
  }
} finally {
  await lab.stop();
}

const pad = (text: string, width: number): string => text.padEnd(width);
const num = (value: number, digits = 2): string => value.toFixed(digits).padStart(8);
console.log(`modules: ${selection.length === 0 ? 'all' : implemented.join(', ')}`);
console.log(`${pad('scenario', 24)}${pad('domain', 24)}   ours s    ref s    ratio  ours MB   ref MB`);
for (const row of rows) {
  console.log(
    `${pad(basename(row.scenario, '.yaml'), 24)}${pad(strip(row.domain), 24)}${num(row.ours.seconds)} ${num(row.reference.seconds)} ${num(row.ours.seconds / row.reference.seconds)} ${num(row.ours.megabytes, 1)} ${num(row.reference.megabytes, 1)}`,
  );
}
const total = (pick: (r: (typeof rows)[number]) => number): number => rows.reduce((sum, r) => sum + pick(r), 0);
const oursTotal = total((r) => r.ours.seconds);
const refTotal = total((r) => r.reference.seconds);
console.log(`\n${rows.length} domains: ours ${oursTotal.toFixed(2)} s, zonemaster-cli ${refTotal.toFixed(2)} s, ratio ${(oursTotal / refTotal).toFixed(3)} (goal: at most 0.25)`);
// Where both engines waited out a silent server, both sit on the profile's timeout; the rest shows the engines themselves.
const timeoutS = 5;
for (const [label, pick] of [
  ['where neither engine waited out a query timeout', (r: (typeof rows)[number]) => r.ours.seconds < timeoutS],
  ['where both waited out a silent server', (r: (typeof rows)[number]) => r.ours.seconds >= timeoutS && r.reference.seconds >= timeoutS],
] as const) {
  const part = rows.filter(pick);
  if (part.length === 0) continue;
  const sum = (f: (r: (typeof rows)[number]) => number): number => part.reduce((acc, r) => acc + f(r), 0);
  console.log(`  ${label}: ${part.length} domains, ours ${sum((r) => r.ours.seconds).toFixed(2)} s, zonemaster-cli ${sum((r) => r.reference.seconds).toFixed(2)} s, ratio ${(sum((r) => r.ours.seconds) / sum((r) => r.reference.seconds)).toFixed(3)}`);
}
console.log(`memory per run: ours ${(total((r) => r.ours.megabytes) / rows.length).toFixed(1)} MB, zonemaster-cli ${(total((r) => r.reference.megabytes) / rows.length).toFixed(1)} MB (mean peak RSS)`);
