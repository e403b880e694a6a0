// What the chain costs on top of a run: per domain, a whole dnscheck process (all nine modules, in
// the lab, with --save, so it also asks the chain's missing questions) against the chain's share:
// those questions (the span of the exchanges of the chain's own network, whose ids start again at 1,
// in the saved log) plus reading the saved queries into the chain, writing grok's JSON and drawing
// the SVG in this process (median of 5). ratio = chain's share / (the run without the questions).
// The headline is the median ratio; the goal is 0.10.
//   npm run bench:chain [-- [--latency 30ms] scenario...]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyseChain, drawChainSvg, toDnsvizJson, type Exchange } from '@app/engine';
import { commandLineDomain as strip, labUnavailableReason, parseLatency, scenarioDomain, startLab } from '@app/lab';

const dnscheck = resolve(import.meta.dirname, '../../packages/engine/bin/dnscheck.js');
const defaults = [
  'healthy-signed',
  'wrong-ds',
  'expired-signatures',
  'dnssec-ds-split',
  'dnssec-alg8',
  'dnssec-nsec3-iterations',
  'lame-delegation',
  'single-nameserver',
];

let latency: ReturnType<typeof parseLatency> | undefined;
const chosen: string[] = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--latency') latency = parseLatency(argv[++i] ?? '');
  else chosen.push(argv[i]);
}
if (chosen.length === 0) chosen.push(...defaults);

const reason = await labUnavailableReason();
if (reason) {
  console.error(`bench:chain: ${reason}`);
  process.exit(1);
}
const lab = await startLab(chosen, latency ? { latency } : {});
const work = mkdtempSync(join(tmpdir(), 'bench-chain-'));
/**
 * The chain's own questions: they come after the whole run, from a network of its own whose ids
 * start again at 1, so the saved log's tail from the first id seen twice.
 */
function chainQuestions(exchanges: readonly Exchange[]): Exchange[] {
  const seen = new Set<number | undefined>();
  const restart = exchanges.findIndex((e) => {
    if (seen.has(e.id)) return true;
    seen.add(e.id);
    return false;
  });
  return restart < 0 ? [] : exchanges.slice(restart);
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ratios: number[] = [];
try {
  console.log("domain                              run ms     ask ms   chain ms   ratio   queries (chain's)");
  for (const scenario of chosen) {
    const domain = scenarioDomain(scenario);
    const saved = join(work, `${scenario}.json`);
    const started = performance.now();
    await lab.exec(process.execPath, [dnscheck, strip(domain), '--hints', lab.hintsPath, '--json', '--no-progress', '--save', saved], {
      timeoutMs: 600_000,
    });
    const runMs = performance.now() - started;
    const run = JSON.parse(readFileSync(saved, 'utf8')) as { domain: string; exchanges: Exchange[] };
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const analysis = analyseChain({ domain: run.domain, exchanges: run.exchanges });
      JSON.stringify(toDnsvizJson(analysis));
      drawChainSvg(analysis);
      times.push(performance.now() - t);
    }
    const chainMs = median(times);
    const asked = chainQuestions(run.exchanges);
    const askMs = asked.length > 0 ? Math.max(...asked.map((e) => e.at + e.ms)) - Math.min(...asked.map((e) => e.at)) : 0;
    const ratio = (askMs + chainMs) / (runMs - askMs);
    ratios.push(ratio);
    console.log(
      `${strip(domain).padEnd(34)} ${runMs.toFixed(0).padStart(8)} ${askMs.toFixed(0).padStart(10)} ${chainMs.toFixed(1).padStart(10)} ${ratio.toFixed(3).padStart(7)} ${String(run.exchanges.length).padStart(9)} (${asked.length})`,
    );
  }
  console.log(`median ratio (chain / run): ${median(ratios).toFixed(3)} (goal: at most 0.10)`);
} finally {
  rmSync(work, { recursive: true, force: true });
  await lab.stop();
}
