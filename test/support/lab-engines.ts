// Running our dnscheck and the reference zonemaster-cli inside a lab, for the engine's lab tests.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { catalogueNames, commandLineDomain, scenarioDomain, type Lab } from '@app/lab';

export const dnscheck = resolve(import.meta.dirname, '../../packages/engine/bin/dnscheck.js');
export const strip = commandLineDomain;

export interface Finding {
  module: string;
  testcase: string;
  tag: string;
  level: string;
  args: Record<string, unknown>;
}

async function findingsFrom(lab: Lab, command: string, args: string[]): Promise<Finding[]> {
  const result = await lab.exec(command, args, { timeoutMs: 180_000 });
  assert.ok(result.stdout.trim().startsWith('['), `${command} printed no JSON (exit ${result.code}): ${result.stderr.slice(-400)}`);
  return JSON.parse(result.stdout) as Finding[];
}

// Runs are deterministic for a lab, so one run serves every test that asks the same thing.
const runs = new Map<string, Promise<Finding[]>>();

/** Our dnscheck on `domain` at DEBUG, with extra arguments (e.g. '--test', 'Basic'). */
export function ours(lab: Lab, domain: string, ...extra: string[]): Promise<Finding[]> {
  const args = [dnscheck, strip(domain), '--hints', lab.hintsPath, '--json', '--level', 'DEBUG', ...extra];
  const key = args.join(' ');
  if (!runs.has(key)) runs.set(key, findingsFrom(lab, process.execPath, args));
  return runs.get(key)!;
}

/** zonemaster-cli on `domain` at INFO, limited to the given modules ('basic', 'delegation', ...). */
export function reference(lab: Lab, domain: string, modules: string[], ...extra: string[]): Promise<Finding[]> {
  const tests = modules.flatMap((m) => ['--test', m]);
  return findingsFrom(lab, 'zonemaster-cli', ['--hints', lab.hintsPath, '--json', '--show-testcase', '--no-progress', '--level', 'INFO', ...tests, ...extra, strip(domain)]);
}

const levelsFromInfo = ['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'];

/** Findings of `modules` at INFO or above as comparable strings: test case, tag, level (and arguments). */
export function keysOf(findings: Finding[], modules: string[], withArgs = false): string[] {
  const wanted = new Set(modules.map((m) => m.toUpperCase()));
  const keys = findings
    .filter((f) => wanted.has(f.module) && levelsFromInfo.includes(f.level))
    .map((f) => `${f.testcase.toUpperCase()} ${f.tag} ${f.level}${withArgs ? ` ${JSON.stringify(Object.fromEntries(Object.entries(f.args).sort()))}` : ''}`);
  return [...new Set(keys)].sort();
}

/** Catalogue scenarios that name a domain, plus any extra scenario files. */
export function scenariosWithDomains(...extra: string[]): string[] {
  return [...catalogueNames(), ...extra].filter((name) => {
    try {
      scenarioDomain(name);
      return true;
    } catch {
      return false;
    }
  });
}
