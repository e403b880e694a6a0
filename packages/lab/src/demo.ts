// `npm run demo`: the whole catalogue in one lab, and what an engine finds in each domain. The
// domain health service does not exist yet, so this runs our engine's CLI directly, or the
// reference zonemaster-cli while our engine has not landed, and says which.
import { existsSync } from 'node:fs';
import { engineCliPath, levels, ourEngine, zonemasterCli, type Finding } from './diff/checkers.ts';
import { scenarioDomain } from './diff/run-diff.ts';
import { startLab } from './namespace/start-lab.ts';
import { catalogueNames } from './scenario/load-scenario.ts';

export async function runDemo(print: (line: string) => void): Promise<void> {
  const names = catalogueNames();
  const checker = existsSync(engineCliPath) ? ourEngine : zonemasterCli;
  print('The domain health service is not part of the repository yet, so the demo runs an engine directly.');
  print(checker === ourEngine ? `Engine: our dnscheck (${engineCliPath}).` : `Engine: the reference zonemaster-cli, because our engine's CLI is not there yet (${engineCliPath}).`);
  const started = performance.now();
  const lab = await startLab(names);
  print(`Lab: ${names.length} scenarios, ${lab.servers.length} name servers, started in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
  try {
    for (const name of names) {
      const domain = scenarioDomain(name);
      const run = await checker.run(lab, domain);
      print(`${name} — ${domain}`);
      if (!run.ok) {
        print(`  could not run: ${run.reason}\n`);
        continue;
      }
      print(`  ${summary(run.findings)} (${run.seconds.toFixed(1)} s)`);
      const serious = new Map<string, Finding>();
      for (const f of run.findings) if (levels.indexOf(f.level) >= levels.indexOf('WARNING')) serious.set(`${f.level} ${f.testcase} ${f.tag}`, f);
      for (const key of [...serious.keys()].sort((a, b) => levelRank(b) - levelRank(a) || a.localeCompare(b))) print(`  ${key}`);
      print('');
    }
  } finally {
    await lab.stop();
  }
}

const levelRank = (key: string): number => levels.indexOf(key.split(' ')[0] as Finding['level']);

function summary(findings: Finding[]): string {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.level, (counts.get(f.level) ?? 0) + 1);
  return [...levels].reverse().flatMap((level) => (counts.has(level) ? [`${counts.get(level)} ${level}`] : [])).join(', ');
}
