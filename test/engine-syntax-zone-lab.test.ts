// The engine's Syntax and Zone modules against real name servers in the lab, and against the reference
// engine (Debian's zonemaster-cli) on the same lab. The syntax-* and zone-* scenarios (with
// bad-soa-timers) were written so that every tag of the two modules a lab can provoke shows up; both
// engines must report the same findings at every level, arguments included, except the few arguments
// the reference cannot reproduce. Lives outside packages/ because it joins the lab and the engine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pLimit from 'p-limit';
import { catalogueNames, commandLineDomain, labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { modules } from '../packages/engine/src/framework/registry.ts';

const dnscheck = resolve(import.meta.dirname, '../packages/engine/bin/dnscheck.js');

interface Finding {
  module: string;
  testcase: string;
  tag: string;
  level: string;
  args: Record<string, unknown>;
}

const scenarios = catalogueNames().filter((name) => /^(?:syntax|zone)-/.test(name) || name === 'bad-soa-timers');
const domainOf = (scenario: string): string => commandLineDomain(scenarioDomain(scenario));

async function findingsFrom(lab: Lab, command: string, args: string[]): Promise<Finding[]> {
  const result = await lab.exec(command, args, { timeoutMs: 180_000 });
  assert.ok(result.stdout.trim().startsWith('['), `${command} printed no JSON (exit ${result.code}): ${result.stderr.slice(-400)}`);
  const modules = ['SYNTAX', 'ZONE'];
  return (JSON.parse(result.stdout) as Finding[]).filter((f) => modules.includes(f.module) && f.tag !== 'TEST_CASE_START' && f.tag !== 'TEST_CASE_END');
}

// The reference lists some things in hash order, and two of its Zone09 messages name the wrong
// servers (the non-responding ones, and an array reference): those arguments are not compared.
function comparable(f: Finding): string {
  const args = { ...f.args };
  if (f.tag === 'Z09_MX_DATA') for (const key of ['ns_ip_list', 'mailtarget_list']) args[key] = String(args[key]).split(';').sort().join(';');
  if (f.tag === 'Z09_NON_AUTH_MX_RESPONSE' || f.tag === 'Z09_UNEXPECTED_RCODE_MX') delete args.ns_ip_list;
  return `${f.testcase.toUpperCase()} ${f.tag} ${f.level} ${JSON.stringify(Object.fromEntries(Object.entries(args).sort()))}`;
}
const keys = (findings: Finding[]): string[] => [...new Set(findings.map(comparable))].sort();

const labSkip = await labUnavailableReason();
const referenceSkip = spawnSync('zonemaster-cli', ['--version']).status === 0 ? undefined : 'zonemaster-cli is not installed';

describe('Syntax and Zone in the lab', { skip: labSkip ?? false }, () => {
  let lab: Lab;
  // Every run starts in before(), a few at a time (most of a run is waiting on silent servers).
  const limit = pLimit(4);
  const ours = new Map<string, Promise<Finding[]>>();
  const theirs = new Map<string, Promise<Finding[]>>();
  before(async () => {
    lab = await startLab(scenarios);
    for (const scenario of scenarios) {
      const domain = domainOf(scenario);
      ours.set(scenario, limit(() => findingsFrom(lab, process.execPath, [dnscheck, domain, '--hints', lab.hintsPath, '--json', '--level', 'DEBUG', '--test', 'Syntax', '--test', 'Zone'])));
      if (referenceSkip) continue;
      const referenceArgs = ['--hints', lab.hintsPath, '--json', '--show-testcase', '--no-progress', '--level', 'DEBUG', '--test', 'syntax', '--test', 'zone', domain];
      theirs.set(scenario, limit(() => findingsFrom(lab, 'zonemaster-cli', referenceArgs)));
    }
    // A failed run is reported by the test that reads it.
    for (const pending of [...ours.values(), ...theirs.values()]) pending.catch(() => undefined);
  });
  after(async () => {
    await lab?.stop();
  });

  for (const scenario of scenarios) {
    test(`${scenario}: the findings agree with zonemaster-cli, arguments included`, { skip: referenceSkip ?? false }, async () => {
      assert.deepEqual(keys(await ours.get(scenario)!), keys(await theirs.get(scenario)!));
    });
  }

  test('every Syntax and Zone tag a lab can provoke is provoked by these scenarios', async () => {
    const seen = new Set((await Promise.all(ours.values())).flat().map((f) => `${f.module}:${f.tag}`));
    // The root and TLD cases of Zone09 need a zone the lab's catalogue cannot test (its domains sit
    // under test.); Syntax's and Zone10's no-response cases need a zone whose servers answer nothing,
    // where Basic stops the run first. The unit tests of the rules cover what they can of those.
    const notHere = ['SYNTAX:NO_RESPONSE', 'SYNTAX:NO_RESPONSE_SOA_QUERY', 'SYNTAX:NO_RESPONSE_MX_QUERY', 'SYNTAX:IPV4_DISABLED', 'SYNTAX:IPV6_DISABLED',
      'ZONE:NO_RESPONSE_SOA_QUERY', 'ZONE:NO_RESPONSE_MX_QUERY', 'ZONE:Z09_ROOT_EMAIL_DOMAIN', 'ZONE:Z09_TLD_EMAIL_DOMAIN', 'ZONE:NO_RESPONSE', 'ZONE:NO_SOA_IN_RESPONSE', 'ZONE:WRONG_SOA'];
    const declared = modules.filter((m) => m.name === 'SYNTAX' || m.name === 'ZONE').flatMap((m) => m.testCases.flatMap((tc) => tc.tags.map((tag) => `${m.name}:${tag}`)));
    const missing = [...new Set(declared)].filter((tag) => !seen.has(tag) && !notHere.includes(tag));
    assert.deepEqual(missing, []);
  });
});
