// `npm run demo`: the whole catalogue in one lab. With the domain health service (and its agent)
// present, tests go through its JSON-RPC API; otherwise, or when it cannot finish them, the demo runs
// our engine's CLI directly, or the reference zonemaster-cli while our engine has not landed. It
// always says which.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { engineCliPath, levels, ourEngine, zonemasterCli, type Finding } from '../diff/checkers.ts';
import { scenarioDomain } from '../diff/run-diff.ts';
import { startLab, type Lab } from '../namespace/start-lab.ts';
import { catalogueNames } from '../scenario/load-scenario.ts';
import { runThroughService } from './service-demo.ts';

/** The service's CLI; LAB_SERVICE_CLI points elsewhere (another worktree, say). */
const serviceCliPath = process.env.LAB_SERVICE_CLI ?? resolve(import.meta.dirname, '../../../service/bin/dns-service.ts');
const serviceDomains = ['healthy-signed', 'lame-delegation', 'wrong-ds', 'no-tcp'];

export async function runDemo(print: (line: string) => void): Promise<void> {
  const names = catalogueNames();
  const started = performance.now();
  const lab = await startLab(names);
  print(`Lab: ${names.length} scenarios, ${lab.servers.length} name servers, started in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  try {
    if (existsSync(serviceCliPath)) {
      const outcome = await runThroughService(lab, serviceCliPath, serviceDomains.map(scenarioDomain), print);
      if (outcome.ran) {
        for (const { domain, results } of outcome.results) {
          print(`\n${domain} (through the service)`);
          print(`  ${summary(results)}`);
          for (const r of results.filter((x) => isSerious(x.level))) print(`  ${r.level} ${r.testcase}: ${r.message}`);
        }
        return;
      }
      print(`The service ran but could not finish the tests: ${outcome.reason}.`);
    } else {
      print(`The domain health service is not in this build (${serviceCliPath}).`);
    }
    await runEngineDirectly(lab, names, print);
  } finally {
    await lab.stop();
  }
}

async function runEngineDirectly(lab: Lab, names: string[], print: (line: string) => void): Promise<void> {
  const checker = existsSync(engineCliPath) ? ourEngine : zonemasterCli;
  print(checker === ourEngine ? `Running our engine's CLI directly (${engineCliPath}).\n` : `Running the reference zonemaster-cli, because our engine's CLI is not there yet (${engineCliPath}).\n`);
  for (const name of names) {
    const domain = scenarioDomain(name);
    const run = await checker.run(lab, domain);
    print(`${name} — ${domain}`);
    if (!run.ok) {
      print(`  could not run: ${run.reason}\n`);
      continue;
    }
    print(`  ${summary(run.findings)} (${run.seconds.toFixed(1)} s)`);
    const serious = new Set(run.findings.filter((f) => isSerious(f.level)).map((f) => `${f.level} ${f.testcase} ${f.tag}`));
    for (const key of [...serious].sort((a, b) => levelRank(b) - levelRank(a) || a.localeCompare(b))) print(`  ${key}`);
    print('');
  }
}

const isSerious = (level: string): boolean => levels.indexOf(level as Finding['level']) >= levels.indexOf('WARNING');
const levelRank = (key: string): number => levels.indexOf(key.split(' ')[0] as Finding['level']);

function summary(findings: { level: string }[]): string {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.level, (counts.get(f.level) ?? 0) + 1);
  return [...levels].reverse().flatMap((level) => (counts.has(level) ? [`${counts.get(level)} ${level}`] : [])).join(', ');
}
