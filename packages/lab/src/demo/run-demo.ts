// `npm run demo`: the whole catalogue in one lab. With the domain health service (and its agent)
// present, tests go through its JSON-RPC API; otherwise, or when it cannot finish them, the demo runs
// our engine's CLI directly, or the reference zonemaster-cli while our engine has not landed. It
// always says which. Then the lab and the service keep running until the signal (Ctrl-C), and the demo
// prints what to try against them.
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { engineCliPath, levels, ourEngine, zonemasterCli, type Finding } from '../diff/checkers.ts';
import { scenarioDomain } from '../diff/run-diff.ts';
import { startLab, type Lab } from '../namespace/start-lab.ts';
import { catalogueNames } from '../scenario/load-scenario.ts';
import { commandLineDomain } from '../scenario/command-line-domain.ts';
import { LAB_PROFILE, labProfileNotice, labProfilePath } from './lab-profile.ts';
import { runThroughService, type Sandbox } from './service-demo.ts';

/** The service's CLI; LAB_SERVICE_CLI points elsewhere (another worktree, say). */
const serviceCliPath = process.env.LAB_SERVICE_CLI ?? resolve(import.meta.dirname, '../../../service/bin/dns-service.ts');
const serviceDomains = ['healthy-signed', 'lame-delegation', 'wrong-ds', 'no-tcp'];
/** The demo's watch: a clean domain, so silencing one of its servers is a change that alerts. */
const watchedScenario = 'healthy-signed';
/** Findings per domain printed here; the web interface shows the rest. */
const SHOWN_PER_DOMAIN = 6;

export interface DemoOptions {
  /** The host port of the service's JSON-RPC API and web interface (absent or 0: any free one). */
  port?: number;
}

/**
 * Runs the demo, then keeps the lab and the service up until `until` fires (without it, stops at once).
 * A signal during the tests skips to stopping.
 */
export async function runDemo(print: (line: string) => void, until?: AbortSignal, options: DemoOptions = {}): Promise<void> {
  const names = catalogueNames();
  const started = performance.now();
  const seconds = (): string => ((performance.now() - started) / 1000).toFixed(0).padStart(3);
  print(
    `Starting a lab with the whole catalogue: ${names.length} scenarios, the root and test. signed, the root's key as the lab's trust anchor.`,
  );
  const lab = await startLab(names, { signedRoot: true, onProgress: (line) => print(`  ${seconds()} s  ${line}`) });
  print(
    `Lab: ${names.length} scenarios, ${lab.servers.length} name servers, started in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  );
  for (const line of labProfileNotice(labProfilePath)) print(line);
  const stopped = new Promise<void>((done) => {
    if (until === undefined || until.aborted) done();
    else until.addEventListener('abort', () => done(), { once: true });
  });
  try {
    const demo = showFindings(lab, names, print, options);
    // Once the lab stops, a run still going fails; nobody waits for it then.
    demo.catch(() => undefined);
    const service = await Promise.race([demo, stopped.then(() => undefined)]);
    if (until === undefined || until.aborted) return;
    print('');
    for (const line of whatToTry(lab, service)) print(line);
    await stopped;
  } finally {
    await lab.stop();
    if (until !== undefined) print('Stopped: the lab, its name servers and everything that ran inside it are gone.');
  }
}

/** What the demo's service offers once the tests ran: its host port, and the sandbox user and watch. */
interface RunningService {
  port: number;
  sandbox?: Sandbox;
}

/** The tests through the service (its port on the host, which stays open), or through a CLI. */
async function showFindings(
  lab: Lab,
  names: string[],
  print: (line: string) => void,
  options: DemoOptions,
): Promise<RunningService | undefined> {
  if (existsSync(serviceCliPath)) {
    const outcome = await runThroughService(lab, serviceCliPath, serviceDomains.map(scenarioDomain), print, {
      port: options.port,
      watchDomain: scenarioDomain(watchedScenario),
      onAlert: (alert) => {
        print(
          `\nAlert from the watch on ${alert.domain}: ${alert.previous_overall_result} -> ${alert.overall_result} (${alert.compare_url})`,
        );
        for (const f of alert.appeared.slice(0, SHOWN_PER_DOMAIN)) print(`  appeared: ${f.level} ${f.tag}: ${f.message}`);
        for (const f of alert.disappeared.slice(0, SHOWN_PER_DOMAIN)) print(`  gone: ${f.level} ${f.tag}: ${f.message}`);
      },
    });
    if (outcome.ran) {
      for (const { domain, id, results } of outcome.results) {
        print(`\n${domain} (through the service, test ${id})`);
        print(`  ${summary(results)}`);
        const serious = results
          .filter((x) => isSerious(x.level))
          .sort((a, b) => levels.indexOf(b.level as Finding['level']) - levels.indexOf(a.level as Finding['level']));
        for (const r of serious.slice(0, SHOWN_PER_DOMAIN)) print(`  ${r.level} ${r.testcase}: ${r.message}`);
        const more =
          serious.length > SHOWN_PER_DOMAIN
            ? `${serious.length - SHOWN_PER_DOMAIN} more warnings and errors, and everything else, in `
            : 'The whole report: ';
        print(`  ${more}http://127.0.0.1:${outcome.port}/result/${id}`);
      }
      return { port: outcome.port, sandbox: outcome.sandbox };
    }
    print(`The service ran but could not finish the tests: ${outcome.reason}.`);
    await runEngineDirectly(lab, names, print);
    return outcome.port === undefined ? undefined : { port: outcome.port };
  }
  print(`The domain health service is not in this build (${serviceCliPath}).`);
  await runEngineDirectly(lab, names, print);
  return undefined;
}

/** Commands a reader can paste into another terminal while the lab runs. */
function whatToTry(lab: Lab, service: RunningService | undefined): string[] {
  const servicePort = service?.port;
  const inLab = `nsenter --target ${lab.pid} --net --`;
  const node = relative(process.cwd(), process.execPath) || process.execPath;
  const dnscheck = relative(process.cwd(), engineCliPath) || engineCliPath;
  const profile = relative(process.cwd(), labProfilePath) || labProfilePath;
  const domain = (name: string) => commandLineDomain(scenarioDomain(name));
  const server = lab.servers.find((s) => s.name.endsWith(`.${domain('healthy-signed')}.`));
  const recursor = lab.servers.find((s) => s.behaviour.recursion);
  const lines = ['The lab keeps running until Ctrl-C. Meanwhile, from another terminal (as root):', ''];
  if (servicePort !== undefined) {
    const url = `http://127.0.0.1:${servicePort}/`;
    const rpc = (method: string, params: unknown) =>
      `curl -s ${url} -H 'content-type: application/json' -d '${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })}'`;
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
    const sandbox = service?.sandbox;
    if (sandbox !== undefined) {
      const user = { username: sandbox.username, api_key: sandbox.apiKey };
      lines.push(
        `Batches and watches (add_api_user is on here, a local sandbox): the API user "${sandbox.username}", key ${sandbox.apiKey}`,
        `  ${rpc('add_batch_job', { ...user, domains: ['lame.test', 'wrongds.test', 'notcp.test'], test_params: { profile: LAB_PROFILE } })}`,
        `  ${rpc('get_batch_job_result', { batch_id: '<batch id>' })}`,
        `  ${rpc('watch_list', user)}`,
        '',
      );
      const watched = sandbox.watch;
      const silenced = lab.servers.find((s) => s.name === `ns2.${domain(watchedScenario)}.`);
      if (watched !== undefined && silenced !== undefined) {
        const ip = (verb: 'del' | 'add'): string =>
          silenced.addresses
            .map((a) => `ip addr ${verb} ${a}/${a.includes(':') ? 128 : 32} dev lo${verb === 'add' && a.includes(':') ? ' nodad' : ''}`)
            .join('; ');
        lines.push(
          `A watch (id ${watched.id}) tests ${watched.domain} ${watched.schedule.replace('every 1m', 'every minute')} and alerts the demo's own webhook receiver when the result changes.`,
          `To see an alert arrive in this terminal, silence ${silenced.name.slice(0, -1)}; the alert comes within a minute or two:`,
          `  ${inLab} sh -c '${ip('del')}'`,
          `and to bring it back (no alert then: a watch alerts when the result gets worse, or an error comes or goes):`,
          `  ${inLab} sh -c '${ip('add')}'`,
          '',
        );
      }
    }
  }
  lines.push(
    `dnscheck, our engine, inside the lab (the ${LAB_PROFILE} profile is ${profile}):`,
    `  ${inLab} ${node} ${dnscheck} ${domain('healthy-signed')} --hints ${lab.hintsPath} --profile ${profile}`,
    `  ${inLab} ${node} ${dnscheck} ${domain('wrong-ds')} --hints ${lab.hintsPath} --profile ${profile}`,
    `  ${inLab} ${node} ${dnscheck} ${domain('no-tcp')} --hints ${lab.hintsPath} --show-testcase --level NOTICE`,
    ...(server === undefined
      ? []
      : ['dig, asking a lab name server:', `  ${inLab} dig @${server.addresses[0] ?? ''} ${domain('healthy-signed')} SOA +dnssec`]),
    ...(lab.trustAnchorsPath === undefined || recursor === undefined
      ? []
      : [
          `delv, validating from the lab's root key (its trust anchor, ${lab.trustAnchorsPath}) through a lab resolver:`,
          `  ${inLab} delv -a ${lab.trustAnchorsPath} @${recursor.addresses[0] ?? ''} ${domain('healthy-signed')} SOA`,
        ]),
    `The domains and what is wrong with each: npm run lab -- list`,
  );
  return lines;
}

async function runEngineDirectly(lab: Lab, names: string[], print: (line: string) => void): Promise<void> {
  const checker = existsSync(engineCliPath) ? ourEngine : zonemasterCli;
  print(
    checker === ourEngine
      ? `Running our engine's CLI directly (${engineCliPath}).\n`
      : `Running the reference zonemaster-cli, because our engine's CLI is not there yet (${engineCliPath}).\n`,
  );
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
  return [...levels]
    .reverse()
    .flatMap((level) => (counts.has(level) ? [`${counts.get(level)} ${level}`] : []))
    .join(', ');
}
