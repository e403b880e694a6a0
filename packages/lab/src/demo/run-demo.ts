// `npm run demo`: the whole catalogue in one lab. With the domain health service (and its agent)
// present, tests go through its JSON-RPC API; otherwise, or when it cannot finish them, the demo runs
// our engine's CLI directly, or the reference zonemaster-cli while our engine has not landed. It
// always says which. Then the lab and the service keep running until the signal (Ctrl-C), and the demo
// prints what to try against them.
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { engineCliPath, levels, ourEngine, zonemasterCli, type Finding } from '../diff/checkers.ts';
import { scenarioDomain } from '../diff/run-diff.ts';
import { startLab, type Lab } from '../namespace/start-lab.ts';
import { catalogueNames } from '../scenario/load-scenario.ts';
import { commandLineDomain } from '../scenario/command-line-domain.ts';
import { labProfileNotice, writeLabProfile } from './lab-profile.ts';
import { runThroughService } from './service-demo.ts';

/** The service's CLI; LAB_SERVICE_CLI points elsewhere (another worktree, say). */
const serviceCliPath = process.env.LAB_SERVICE_CLI ?? resolve(import.meta.dirname, '../../../service/bin/dns-service.ts');
const serviceDomains = ['healthy-signed', 'lame-delegation', 'wrong-ds', 'no-tcp'];
/** Findings per domain printed here; the web interface shows the rest. */
const SHOWN_PER_DOMAIN = 6;

/**
 * Runs the demo, then keeps the lab and the service up until `until` fires (without it, stops at once).
 * A signal during the tests skips to stopping.
 */
export async function runDemo(print: (line: string) => void, until?: AbortSignal): Promise<void> {
  const names = catalogueNames();
  const started = performance.now();
  const lab = await startLab(names);
  print(`Lab: ${names.length} scenarios, ${lab.servers.length} name servers, started in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  for (const line of labProfileNotice(writeLabProfile(lab.dir).profile)) print(line);
  const stopped = new Promise<void>((done) => {
    if (until === undefined || until.aborted) done();
    else until.addEventListener('abort', () => done(), { once: true });
  });
  try {
    const demo = showFindings(lab, names, print);
    // Once the lab stops, a run still going fails; nobody waits for it then.
    demo.catch(() => undefined);
    const servicePort = await Promise.race([demo, stopped.then(() => undefined)]);
    if (until === undefined || until.aborted) return;
    print('');
    for (const line of whatToTry(lab, servicePort)) print(line);
    await stopped;
  } finally {
    await lab.stop();
    if (until !== undefined) print('Stopped: the lab, its name servers and everything that ran inside it are gone.');
  }
}

/** The tests through the service (its port on the host, which stays open), or through a CLI. */
async function showFindings(lab: Lab, names: string[], print: (line: string) => void): Promise<number | undefined> {
  if (existsSync(serviceCliPath)) {
    const outcome = await runThroughService(lab, serviceCliPath, serviceDomains.map(scenarioDomain), print);
    if (outcome.ran) {
      for (const { domain, id, results } of outcome.results) {
        print(`\n${domain} (through the service, test ${id})`);
        print(`  ${summary(results)}`);
        const serious = results.filter((x) => isSerious(x.level)).sort((a, b) => levels.indexOf(b.level as Finding['level']) - levels.indexOf(a.level as Finding['level']));
        for (const r of serious.slice(0, SHOWN_PER_DOMAIN)) print(`  ${r.level} ${r.testcase}: ${r.message}`);
        const more = serious.length > SHOWN_PER_DOMAIN ? `${serious.length - SHOWN_PER_DOMAIN} more warnings and errors, and everything else, in ` : 'The whole report: ';
        print(`  ${more}http://127.0.0.1:${outcome.port}/result/${id}`);
      }
      return outcome.port;
    }
    print(`The service ran but could not finish the tests: ${outcome.reason}.`);
    await runEngineDirectly(lab, names, print);
    return outcome.port;
  }
  print(`The domain health service is not in this build (${serviceCliPath}).`);
  await runEngineDirectly(lab, names, print);
  return undefined;
}

/** Commands a reader can paste into another terminal while the lab runs. */
function whatToTry(lab: Lab, servicePort: number | undefined): string[] {
  const inLab = `nsenter --target ${lab.pid} --net --`;
  const node = relative(process.cwd(), process.execPath) || process.execPath;
  const dnscheck = relative(process.cwd(), engineCliPath) || engineCliPath;
  const domain = (name: string) => commandLineDomain(scenarioDomain(name));
  const server = lab.servers.find((s) => s.name.endsWith(`.${domain('healthy-signed')}.`));
  const lines = ['The lab keeps running until Ctrl-C. Meanwhile, from another terminal (as root):', ''];
  if (servicePort !== undefined) {
    const url = `http://127.0.0.1:${servicePort}/`;
    const rpc = (method: string, params: unknown) => `curl -s ${url} -H 'content-type: application/json' -d '${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })}'`;
    lines.push(
      `Web interface: ${url}`,
      `  test a lab domain there (${domain('lame-delegation')}, ${domain('wrong-ds')}, ...), or read a report: ${url}result/<test id>`,
      `JSON-RPC API: ${url}`,
      `  ${rpc('start_domain_test', { domain: domain('inconsistent-serials') })}`,
      `  ${rpc('test_progress', { test_id: '<test id>' })}`,
      `  ${rpc('get_test_results', { id: '<test id>', language: 'en' })}`,
      `  ${rpc('get_data_from_parent_zone', { domain: domain('wrong-ds') })}`,
      `  ${rpc('get_test_history', { frontend_params: { domain: domain('healthy-signed') } })}`,
      '',
    );
  }
  lines.push(
    'dnscheck, our engine, inside the lab:',
    `  ${inLab} ${node} ${dnscheck} ${domain('wrong-ds')} --hints ${lab.hintsPath} --profile ${join(lab.dir, 'lab.json')}`,
    `  ${inLab} ${node} ${dnscheck} ${domain('no-tcp')} --hints ${lab.hintsPath} --show-testcase --level NOTICE`,
    ...(server === undefined ? [] : ['dig, asking a lab name server:', `  ${inLab} dig @${server.addresses[0] ?? ''} ${domain('healthy-signed')} SOA +dnssec`]),
    `The domains and what is wrong with each: npm run lab -- list`,
  );
  return lines;
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
