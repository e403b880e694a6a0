// The two engines the differential runner compares, each run inside a lab on one domain:
// zonemaster-cli 8.0.1 with engine 9.0.1 (the reference) and our own `dnscheck` CLI.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExecResult, Lab } from '../namespace/start-lab.ts';
import { execReference, referenceUnavailableReason } from './reference-engine.ts';
import { commandLineDomain } from '../scenario/command-line-domain.ts';

export const levels = ['DEBUG3', 'DEBUG2', 'DEBUG', 'INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type Level = (typeof levels)[number];

export interface Finding {
  module: string;
  testcase: string;
  tag: string;
  level: Level;
  args: Record<string, unknown>;
}

export type CheckerRun = { ok: true; findings: Finding[]; version: string; seconds: number } | { ok: false; reason: string };

export interface Checker {
  name: string;
  run(lab: Lab, domain: string): Promise<CheckerRun>;
}

/** What both engines are compared on: INFO and above, without the version tags (they describe the software, not the zone). */
const versionTags = new Set(['GLOBAL_VERSION', 'MODULE_VERSION', 'DEPENDENCY_VERSION']);
const compared = (f: Finding): boolean => !versionTags.has(f.tag) && levels.indexOf(f.level) >= levels.indexOf('INFO');

/** zonemaster-cli 8 prints `{"results": [...]}`; our dnscheck and older references a bare array. */
export function parseFindings(stdout: string, who: string): Finding[] {
  const parsed: unknown = JSON.parse(stdout);
  const list = Array.isArray(parsed) ? parsed : (parsed as { results?: unknown }).results;
  if (!Array.isArray(list)) throw new Error(`${who} did not print a JSON array`);
  return list as Finding[];
}

async function timed(run: () => Promise<ExecResult>, who: string): Promise<{ findings: Finding[]; seconds: number } | { reason: string }> {
  const started = performance.now();
  const result = await run();
  const seconds = (performance.now() - started) / 1000;
  if (result.code !== 0 && result.stdout.trim() === '')
    return { reason: `${who} exited with ${result.code ?? result.signal}: ${result.stderr.trim().slice(-500)}` };
  try {
    return { findings: parseFindings(result.stdout, who), seconds };
  } catch (error) {
    return { reason: `${who} output was not JSON findings (${(error as Error).message}): ${result.stdout.slice(0, 200)}` };
  }
}

export const zonemasterCli: Checker = {
  name: 'zonemaster-cli',
  async run(lab, domain) {
    const unavailable = referenceUnavailableReason();
    if (unavailable !== undefined) return { ok: false, reason: unavailable };
    const args = [
      '--hints',
      '{hints}',
      '--json',
      '--show-testcase',
      '--show-module',
      '--level',
      'INFO',
      '--no-progress',
      commandLineDomain(domain),
    ];
    const outcome = await timed(() => execReference(lab, args, { timeoutMs: 10 * 60_000 }), 'zonemaster-cli');
    if ('reason' in outcome) return { ok: false, reason: outcome.reason };
    const version = outcome.findings.find((f) => f.tag === 'GLOBAL_VERSION')?.args.version;
    return {
      ok: true,
      findings: outcome.findings.filter(compared),
      version: `zonemaster-cli ${typeof version === 'string' ? version : '?'}`,
      seconds: outcome.seconds,
    };
  },
};

/** Our engine's CLI; LAB_ENGINE_CLI points elsewhere (another worktree, say). */
export const engineCliPath = process.env.LAB_ENGINE_CLI ?? resolve(import.meta.dirname, '../../../engine/bin/dnscheck.js');

export const ourEngine: Checker = {
  name: 'dnscheck',
  async run(lab, domain) {
    if (!existsSync(engineCliPath))
      return { ok: false, reason: `our engine's CLI (${engineCliPath}) is not there yet: branch engine has not been merged` };
    const args = [engineCliPath, commandLineDomain(domain), '--hints', lab.hintsPath, '--json'];
    const outcome = await timed(() => lab.exec(process.execPath, args, { timeoutMs: 10 * 60_000 }), 'dnscheck');
    if ('reason' in outcome) return { ok: false, reason: outcome.reason };
    return { ok: true, findings: outcome.findings.filter(compared), version: 'dnscheck', seconds: outcome.seconds };
  },
};
