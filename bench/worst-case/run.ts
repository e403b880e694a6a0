// The zones that make other engines take minutes or never finish (packages/lab/scenarios/worst-case/:
// 88 name servers, 100 with half silent, TCP only, a delegation loop, 2 s per answer), each in its own
// lab: our dnscheck's time beside zonemaster-cli 8.0.1's on the same lab, whether the reference
// finished within the 600 s Zonemaster's backend allows a test, and whether our findings reach every
// (test case, tag, level) the reference reaches.
//   npm run bench:worst-case [-- --latency 30ms] [--no-reference] [--record] [scenario...]
// --record writes the reference's runs to test/reference-findings/ (test/engine-worst-case-lab.test.ts reads them).
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import {
  catalogueDir,
  describeLatency,
  parseLatency,
  referenceUnavailableReason,
  scenarioDomain,
  startLab,
  labUnavailableReason,
} from '@app/lab';
import { allModules, dnscheck, keysOf, runReference, strip, type Finding } from '../../test/support/lab-engines.ts';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    latency: { type: 'string', default: '30ms' },
    'no-reference': { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
  },
});
const latency = parseLatency(options.latency);
const folder = join(catalogueDir, 'worst-case');
const scenarios =
  positionals.length > 0 ? positionals.map((name) => join(folder, `${name}.yaml`)) : readdirSync(folder).map((file) => join(folder, file));
const referenceLimitSeconds = 600;

const labReason = await labUnavailableReason();
if (labReason !== undefined) {
  console.log(`bench:worst-case skipped: ${labReason}`);
  process.exit(0);
}
const referenceMissing = options['no-reference'] ? 'not asked for (--no-reference)' : referenceUnavailableReason();
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
console.log(`bench:worst-case — answers after ${describeLatency(latency)}; load at start ${load()}`);

const comparable = (findings: Finding[]): string[] =>
  keysOf(
    findings.filter((f) => !/^(GLOBAL|MODULE|DEPENDENCY)_VERSION$/.test(f.tag)),
    allModules,
  );

for (const path of scenarios) {
  const domain = scenarioDomain(path);
  const lab = await startLab([path], { latency });
  try {
    const started = performance.now();
    const run = await lab.exec(
      process.execPath,
      [dnscheck, strip(domain), '--hints', lab.hintsPath, '--json', '--level', 'INFO', '--no-progress'],
      { timeoutMs: 15 * 60_000 },
    );
    const ourSeconds = (performance.now() - started) / 1000;
    const ours = JSON.parse(run.stdout) as Finding[];
    const modulesReported = new Set(ours.map((f) => f.module.toUpperCase())).size;
    let line = `${basename(path, '.yaml')} (${strip(domain)}): ours ${ourSeconds.toFixed(1)} s (${ours.length} findings from ${modulesReported} modules)`;
    if (referenceMissing !== undefined) {
      line += `; reference not run: ${referenceMissing}`;
    } else {
      const reference = await runReference(lab, domain, allModules, [], {
        timeoutMs: referenceLimitSeconds * 1000,
        record: options.record,
      });
      if (!reference.finished) {
        line += `; zonemaster-cli 8.0.1 did not finish within ${referenceLimitSeconds} s`;
      } else {
        const ourKeys = new Set(comparable(ours));
        const referenceKeys = comparable(reference.findings);
        const missing = referenceKeys.filter((key) => !ourKeys.has(key));
        const extra = [...ourKeys].filter((key) => !referenceKeys.includes(key));
        line += `; zonemaster-cli 8.0.1 ${reference.seconds.toFixed(1)} s (${(reference.seconds / ourSeconds).toFixed(1)}x ours); (test case, tag, level): ${referenceKeys.length - missing.length} of the reference's ${referenceKeys.length} reached`;
        if (missing.length > 0) line += `, missing ${missing.join(' | ')}`;
        if (extra.length > 0) line += `; extra in ours ${extra.join(' | ')}`;
      }
    }
    console.log(line);
  } finally {
    await lab.stop();
  }
}
console.log(`load at end ${load()}`);
