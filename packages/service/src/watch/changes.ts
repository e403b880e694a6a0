// What changed between two runs of a watch, and whether it is worth an alert: the overall result got
// worse, or a finding at ERROR or CRITICAL appeared or went away. The alert lists the changed findings
// from WARNING up, so one sent because the result got worse by a warning names that warning. Findings are matched as the web
// interface's comparison matches them (report-model.ts: same module, test case, level, and text
// without case), so an alert and the comparison page it links to agree. A finding of a test case the
// newer run did not run (it stopped early, say at Basic02) is "not tested", not "went away".
import type { Level } from '@app/engine';
import type { Kysely } from 'kysely';
import { reportedTestCase } from '../test-case.ts';
import type { EngineAdapter } from '../engine-adapter.ts';
import type { ServiceSchema } from '../db/tables.ts';
import { findTest, resultEntries } from '../db/tests.ts';
import { compareReports } from '../shared/report-model.ts';

export type Overall = 'ok' | 'warning' | 'error' | 'critical';

const OVERALL_RANK: Record<Overall, number> = { ok: 0, warning: 1, error: 2, critical: 3 };
const ALERT_LEVELS = new Set<string>(['ERROR', 'CRITICAL']);
const LISTED_LEVELS = new Set<string>(['WARNING', 'ERROR', 'CRITICAL']);
const SHOWN_LEVELS = new Set<string>(['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL']);

export interface ChangedFinding {
  module: string;
  testcase: string;
  tag: string;
  level: 'WARNING' | 'ERROR' | 'CRITICAL';
  args: Record<string, unknown>;
  /** In the watch's language. */
  message: string;
}

export interface RunChange {
  overallBefore: Overall;
  overallAfter: Overall;
  worse: boolean;
  appeared: ChangedFinding[];
  disappeared: ChangedFinding[];
  /** Findings of the previous run whose test cases the newer run did not run: neither gone nor still there. */
  notTested: ChangedFinding[];
}

/** Whether a change calls for an alert. */
export function worthAlerting(change: RunChange): boolean {
  return change.worse || [...change.appeared, ...change.disappeared].some((f) => ALERT_LEVELS.has(f.level));
}

/** Compares two finished tests; the findings' texts in `locale`. */
export async function compareRuns(
  db: Kysely<ServiceSchema>,
  engine: EngineAdapter,
  beforeId: string,
  afterId: string,
  locale: string,
): Promise<RunChange> {
  const [before, after] = await Promise.all([runOf(db, engine, beforeId, locale), runOf(db, engine, afterId, locale)]);
  const { appeared, disappeared } = compareReports(before.findings, after.findings);
  const listed = (list: typeof appeared) => (list as ChangedFinding[]).filter((f) => LISTED_LEVELS.has(f.level));
  // Only what the previous run is known to have run: findings outside test cases compare as they are.
  const untested = (f: { testcase: string }) => before.ran.has(f.testcase.toLowerCase()) && !after.ran.has(f.testcase.toLowerCase());
  return {
    overallBefore: before.overall,
    overallAfter: after.overall,
    worse: OVERALL_RANK[after.overall] > OVERALL_RANK[before.overall],
    appeared: listed(appeared),
    disappeared: listed(disappeared.filter((f) => !untested(f))),
    notTested: listed(disappeared.filter(untested)),
  };
}

async function runOf(db: Kysely<ServiceSchema>, engine: EngineAdapter, hashId: string, locale: string) {
  const row = await findTest(db, hashId);
  if (row === undefined) throw new Error(`test ${hashId} is gone`);
  const entries = await resultEntries(db, row.id);
  // The engine marks each test case it runs (TEST_CASE_START, at DEBUG: stored, never shown).
  const ran = new Set(entries.filter((entry) => entry.tag === 'TEST_CASE_START').map((entry) => entry.testcase.toLowerCase()));
  const findings = entries
    .filter((entry) => SHOWN_LEVELS.has(entry.level))
    .map((entry) => {
      const finding = {
        module: entry.module,
        testcase: reportedTestCase(entry.testcase),
        tag: entry.tag,
        level: entry.level as Level,
        args: JSON.parse(entry.args) as Record<string, string | number | boolean | null>,
        timestamp: entry.timestamp,
      };
      return {
        module: finding.module,
        testcase: finding.testcase,
        tag: finding.tag,
        level: finding.level as ChangedFinding['level'],
        args: finding.args,
        message: engine.formatFinding(finding, locale),
      };
    });
  return { overall: (row.overall_result ?? 'ok') as Overall, findings, ran };
}
