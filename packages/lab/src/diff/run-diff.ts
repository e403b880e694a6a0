// The differential runner: one lab holding the given scenarios, both engines on each scenario's
// domain, and the (testcase, tag, level) comparison.
import { readFileSync } from 'node:fs';
import { startLab } from '../namespace/start-lab.ts';
import { parseScenarioText, resolveScenarioPath } from '../scenario/load-scenario.ts';
import { ourEngine, zonemasterCli, type Checker, type CheckerRun } from './checkers.ts';
import { compareFindings, type Comparison } from './compare-findings.ts';
import type { Latency } from '../scenario/latency.ts';

export interface DiffRow {
  scenario: string;
  domain: string;
  reference: CheckerRun;
  ours: CheckerRun;
  /** Absent when either engine could not run. */
  comparison?: Comparison;
}

/** The domain a scenario file names (its own, not one it extends). */
export function scenarioDomain(scenario: string): string {
  const path = resolveScenarioPath(scenario);
  const domain = parseScenarioText(readFileSync(path, 'utf8'), path).domain;
  if (domain === undefined) throw new Error(`scenario ${scenario} names no domain; give one on the command line`);
  return domain;
}

export async function runDiff(
  scenarios: string[],
  options: {
    domain?: string;
    onRow?: (row: DiffRow) => void;
    reference?: Checker;
    ours?: Checker;
    latency?: Latency;
    signedRoot?: boolean;
  } = {},
): Promise<DiffRow[]> {
  const targets = scenarios.map((scenario) => ({ scenario, domain: options.domain ?? scenarioDomain(scenario) }));
  const reference = options.reference ?? zonemasterCli;
  const ours = options.ours ?? ourEngine;
  const lab = await startLab(scenarios, { latency: options.latency, signedRoot: options.signedRoot });
  const rows: DiffRow[] = [];
  try {
    for (const { scenario, domain } of targets) {
      const [ref, mine] = await Promise.all([reference.run(lab, domain), ours.run(lab, domain)]);
      const row: DiffRow = { scenario, domain, reference: ref, ours: mine };
      if (ref.ok && mine.ok) row.comparison = compareFindings(ref.findings, mine.findings);
      rows.push(row);
      options.onRow?.(row);
    }
  } finally {
    await lab.stop();
  }
  return rows;
}
