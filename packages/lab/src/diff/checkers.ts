// The two engines the differential runner compares, each run inside a lab on one domain:
// Debian's zonemaster-cli (the reference) and our own `dnscheck` CLI (when its branch has landed).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Lab } from '../namespace/start-lab.ts';
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

function parseFindings(stdout: string, who: string): Finding[] {
  const parsed: unknown = JSON.parse(stdout);
  if (!Array.isArray(parsed)) throw new Error(`${who} did not print a JSON array`);
  return parsed as Finding[];
}

async function timed(lab: Lab, command: string, args: string[], who: string): Promise<{ findings: Finding[]; seconds: number } | { reason: string }> {
  const started = performance.now();
  const result = await lab.exec(command, args, { timeoutMs: 10 * 60_000 });
  const seconds = (performance.now() - started) / 1000;
  if (result.code !== 0 && result.stdout.trim() === '') return { reason: `${who} exited with ${result.code ?? result.signal}: ${result.stderr.trim().slice(-500)}` };
  try {
    return { findings: parseFindings(result.stdout, who), seconds };
  } catch (error) {
    return { reason: `${who} output was not JSON findings (${(error as Error).message}): ${result.stdout.slice(0, 200)}` };
  }
}

export const zonemasterCli: Checker = {
  name: 'zonemaster-cli',
  async run(lab, domain) {
    const args = ['--hints', lab.hintsPath, '--json', '--show-testcase', '--level', 'INFO', '--no-progress', commandLineDomain(domain)];
    const outcome = await timed(lab, 'zonemaster-cli', args, 'zonemaster-cli');
    if ('reason' in outcome) return { ok: false, reason: outcome.reason };
    const version = outcome.findings.find((f) => f.tag === 'GLOBAL_VERSION')?.args.version;
    return { ok: true, findings: outcome.findings.filter(compared), version: `zonemaster-cli ${typeof version === 'string' ? version : '?'}`, seconds: outcome.seconds };
  },
};

/** Our engine's CLI; LAB_ENGINE_CLI points elsewhere (another worktree, say). */
export const engineCliPath = process.env.LAB_ENGINE_CLI ?? resolve(import.meta.dirname, '../../../engine/bin/dnscheck.js');

export const ourEngine: Checker = {
  name: 'dnscheck',
  async run(lab, domain) {
    if (!existsSync(engineCliPath)) return { ok: false, reason: `our engine's CLI (${engineCliPath}) is not there yet: branch engine has not been merged` };
    const outcome = await timed(lab, process.execPath, [engineCliPath, commandLineDomain(domain), '--hints', lab.hintsPath, '--json'], 'dnscheck');
    if ('reason' in outcome) return { ok: false, reason: outcome.reason };
    return { ok: true, findings: outcome.findings.filter(compared), version: 'dnscheck', seconds: outcome.seconds };
  },
};
