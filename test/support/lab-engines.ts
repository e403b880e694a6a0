// Running our dnscheck and the reference zonemaster-cli inside a lab, for the engine's lab tests.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  catalogueNames,
  commandLineDomain,
  execReference,
  installReferenceCommand,
  parseFindings,
  scenarioDomain,
  variantSource,
  type Lab,
} from '@app/lab';

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
  assert.ok(/^[[{]/.test(result.stdout.trim()), `${command} printed no JSON (exit ${result.code}): ${result.stderr.slice(-400)}`);
  // dnscheck's --json is an object (findings beside the compliance table) when the Compliance module ran.
  const printed = JSON.parse(result.stdout) as Finding[] | { findings: Finding[] };
  return Array.isArray(printed) ? printed : printed.findings;
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

/**
 * The reference is Zonemaster engine 9.0.1 (zonemaster-cli 8.0.1). The lab tests compare with its
 * findings as recorded in test/reference-findings/, so CI needs no oracle; LAB_RECORD_REFERENCE
 * records them (packages/lab/README.md, "The reference engine").
 */
export const recordingsDir = resolve(import.meta.dirname, '../reference-findings');
// LAB_RECORD_REFERENCE=1 records every run anew; =missing only those not recorded yet.
const recordMode = process.env.LAB_RECORD_REFERENCE;
const shouldRecord = (path: string): boolean => recordMode === '1' || (recordMode === 'missing' && !existsSync(path));

/** The recording's file for one reference run: the domain, the modules (`all` for none given), and a digest of any other arguments. */
function recordingPath(domain: string, modules: string[], extra: string[]): string {
  const digest = extra.length === 0 ? '' : `-${createHash('sha256').update(extra.join('\0')).digest('hex').slice(0, 10)}`;
  const selection =
    modules.length === 0
      ? 'all'
      : modules
          .map((m) => m.toLowerCase())
          .sort()
          .join('+');
  return join(recordingsDir, `${strip(domain) === '.' ? 'root' : strip(domain)}--${selection}${digest}.json`);
}

/** zonemaster-cli's arguments for one recorded run. */
function referenceArgs(domain: string, modules: string[], extra: string[]): string[] {
  // zonemaster-cli 8 reads a second bare '--test' as a new selection: later modules are added with '+'.
  const tests = modules.flatMap((m, i) => ['--test', i === 0 ? m : `+${m}`]);
  return ['--json', '--show-testcase', '--show-module', '--no-progress', '--level', 'INFO', ...tests, ...extra, strip(domain)];
}

export interface ReferenceRun {
  findings: Finding[];
  seconds: number;
  /** False when the run was stopped at the time limit (findings then empty). */
  finished: boolean;
}

/**
 * Runs the reference now and, when `record` is set, writes the run to test/reference-findings/ (its
 * time with it). A run still going after `timeoutMs` is stopped and recorded as unfinished.
 */
export async function runReference(
  lab: Lab,
  domain: string,
  modules: string[],
  extra: string[],
  options: { timeoutMs: number; record: boolean },
): Promise<ReferenceRun> {
  const args = referenceArgs(domain, modules, extra);
  const started = performance.now();
  const result = await execReference(lab, ['--hints', '{hints}', ...args], { timeoutMs: options.timeoutMs });
  const seconds = (performance.now() - started) / 1000;
  const finished = result.stdout.trim() !== '';
  const findings = finished ? parseFindings(result.stdout, 'zonemaster-cli') : [];
  if (options.record) {
    mkdirSync(recordingsDir, { recursive: true });
    const timing = modules.length === allModules.length ? { seconds: Math.round(seconds), finished } : {};
    writeFileSync(
      recordingPath(domain, modules, extra),
      `${JSON.stringify({ command: ['zonemaster-cli', ...args], ...timing, findings }, null, 1)}\n`,
    );
  }
  return { findings, seconds, finished };
}

async function recordedReference(lab: Lab, domain: string, modules: string[], extra: string[]): Promise<Finding[]> {
  const path = recordingPath(domain, modules, extra);
  if (shouldRecord(path)) return (await runReference(lab, domain, modules, extra, { timeoutMs: 180_000, record: true })).findings;
  assert.ok(
    existsSync(path),
    `no recorded reference run for zonemaster-cli ${referenceArgs(domain, modules, extra).join(' ')}: install the reference (${installReferenceCommand}), then run this test with LAB_RECORD_REFERENCE=1`,
  );
  return (JSON.parse(readFileSync(path, 'utf8')) as { findings: Finding[] }).findings;
}

/** A recorded run of every module, with the time the reference took (see runReference). */
export function recordedFullReference(domain: string): { findings: Finding[]; seconds: number; finished: boolean } | undefined {
  const path = recordingPath(domain, allModules, []);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ReferenceRun) : undefined;
}

/** Every module of the engines, as the recordings name them. */
export const allModules = ['address', 'basic', 'connectivity', 'consistency', 'delegation', 'dnssec', 'nameserver', 'syntax', 'zone'];

/** The reference on `domain` at INFO, limited to the given modules ('basic', 'delegation', ...; none: all of them). */
export function reference(lab: Lab, domain: string, modules: string[], ...extra: string[]): Promise<Finding[]> {
  return recordedReference(lab, domain, modules, extra);
}

const levelsFromInfo = ['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'];

/** Findings of `modules` at INFO or above as comparable strings: test case, tag, level (and arguments). */
export function keysOf(findings: Finding[], modules: string[], withArgs = false): string[] {
  const wanted = new Set(modules.map((m) => m.toUpperCase()));
  const keys = findings
    .filter((f) => wanted.has(f.module.toUpperCase()) && levelsFromInfo.includes(f.level))
    .map(
      (f) =>
        `${f.testcase.toUpperCase()} ${f.tag} ${f.level}${withArgs ? ` ${JSON.stringify(Object.fromEntries(Object.entries(f.args).sort()))}` : ''}`,
    );
  return [...new Set(keys)].sort();
}

/**
 * Catalogue scenarios that name a domain, plus any extra scenario files. Not the variants served by
 * other implementations: test/engine-implementations-lab.test.ts compares every module on those.
 */
export function scenariosWithDomains(...extra: string[]): string[] {
  return [...ownScenarios(), ...extra].filter((name) => {
    try {
      scenarioDomain(name);
      return true;
    } catch {
      return false;
    }
  });
}

/** The catalogue without the variants (`variantOf`) of its scenarios. */
export function ownScenarios(): string[] {
  return catalogueNames().filter((name) => variantSource(name) === undefined);
}

/** The catalogue's variants: other scenarios again, served by other implementations. */
export function variantScenarios(): string[] {
  return catalogueNames().filter((name) => variantSource(name) !== undefined);
}
