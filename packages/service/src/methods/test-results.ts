// The answers made from a finished test's stored findings: get_test_results (the reference's shape, with our
// Compliance table beside it) and our get_test_report (the run whole, each finding with its tag and arguments).
import type { Finding, Level } from '@app/engine';
import type { ResultEntryRow, TestRow } from '../db/tests.ts';
import type { TestParams } from '../db/test-params.ts';
import { deprecatedTimestamp, timestamp } from '../db/timestamps.ts';
import type { EngineAdapter } from '../engine-adapter.ts';
import { reportedTestCase } from '../test-case.ts';

const HIDDEN_LEVELS = new Set(['DEBUG', 'DEBUG2', 'DEBUG3']);

function storedFinding(entry: ResultEntryRow): Finding {
  return {
    module: entry.module,
    testcase: reportedTestCase(entry.testcase),
    tag: entry.tag,
    level: entry.level as Level,
    args: JSON.parse(entry.args) as Finding['args'],
    timestamp: entry.timestamp,
  };
}

const shown = (stored: readonly ResultEntryRow[]): Finding[] => stored.filter((e) => !HIDDEN_LEVELS.has(e.level)).map(storedFinding);

export function resultsAnswer(engine: EngineAdapter, row: TestRow, stored: readonly ResultEntryRow[], locale: string) {
  const results = shown(stored).map((finding) => {
    const result: Record<string, string> = {
      module: finding.module,
      message: engine.formatFinding(finding, locale),
      level: finding.level,
      testcase: finding.testcase,
    };
    if (finding.module === 'NAMESERVER' && typeof finding.args.ns === 'string') result.ns = finding.args.ns;
    return result;
  });
  // As the reference builds it: one description for each test case the results name.
  const descriptions = Object.fromEntries(
    [...new Set(results.map((r) => r.testcase))].map((testcase) => [testcase, engine.testCaseDescription(testcase, locale)]),
  );
  // Ours: the Compliance module's table (profile extended), made from every stored finding, passes included.
  const compliance = engine.complianceTable(stored.map(storedFinding));
  // And the Automation module's verdict: the DS records a parent should publish (or why none).
  const parent = engine.parentDs(stored.map(storedFinding), locale);
  const zoneIntegrity = engine.zoneIntegritySummary(stored.map(storedFinding));
  const transports = engine.transportsTable(stored.map(storedFinding));
  return {
    creation_time: deprecatedTimestamp(row.created_at),
    created_at: timestamp(row.created_at),
    hash_id: row.hash_id,
    params: JSON.parse(row.params) as TestParams,
    results,
    testcase_descriptions: descriptions,
    ...(compliance.length > 0 && { compliance }),
    ...(parent !== undefined && { parent_ds: parent }),
    ...(zoneIntegrity && { zone_integrity: zoneIntegrity }),
    ...(transports.length > 0 && { transports }),
  };
}

/** docs/results.schema.json, `run`. */
export function reportAnswer(engine: EngineAdapter, row: TestRow, stored: readonly ResultEntryRow[], locale: string) {
  const findings = shown(stored).map((finding) => ({ ...finding, message: engine.formatFinding(finding, locale) }));
  const measured =
    row.started_at !== null && row.ended_at !== null ? (Date.parse(row.ended_at) - Date.parse(row.started_at)) / 1000 : undefined;
  return {
    test_id: row.hash_id,
    domain: row.domain,
    created_at: timestamp(row.created_at),
    engine_version: engine.engineVersion,
    elapsed: measured ?? Math.max(0, ...findings.map((f) => f.timestamp)),
    overall_result: row.overall_result ?? 'ok',
    findings,
  };
}
