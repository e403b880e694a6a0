// What the report shows, computed from get_test_results: levels, counts, the overall result,
// findings grouped by module then test case, and what changed between two reports.
import type { Level, OverallResult, TestResult, TestResults } from './api-shapes.ts';

export const LEVELS: readonly Level[] = ['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'];

export const severity = (level: Level): number => LEVELS.indexOf(level);

export function worstLevel(results: readonly TestResult[]): Level | undefined {
  let worst: Level | undefined;
  for (const { level } of results) if (worst === undefined || severity(level) > severity(worst)) worst = level;
  return worst;
}

/** The spec's rule for get_test_history's overall_result. */
export function overallResult(results: readonly TestResult[]): OverallResult {
  const worst = worstLevel(results);
  return worst === 'CRITICAL' ? 'critical' : worst === 'ERROR' ? 'error' : worst === 'WARNING' ? 'warning' : 'ok';
}

export function countByLevel(results: readonly TestResult[]): Record<Level, number> {
  const counts = Object.fromEntries(LEVELS.map((level) => [level, 0])) as Record<Level, number>;
  for (const { level } of results) counts[level]++;
  return counts;
}

export interface TestCaseGroup {
  testcase: string;
  description: string;
  results: TestResult[];
}
export interface ModuleGroup {
  module: string;
  worst: Level;
  testcases: TestCaseGroup[];
  results: TestResult[];
}

/** Modules and test cases in the order the engine reported them (its module order). */
export function groupByModule(report: Pick<TestResults, 'results' | 'testcase_descriptions'>): ModuleGroup[] {
  const modules = new Map<string, ModuleGroup>();
  for (const result of report.results) {
    let group = modules.get(result.module);
    if (!group) modules.set(result.module, (group = { module: result.module, worst: result.level, testcases: [], results: [] }));
    group.results.push(result);
    if (severity(result.level) > severity(group.worst)) group.worst = result.level;
    let testcase = group.testcases.find((t) => t.testcase === result.testcase);
    if (!testcase) {
      const description = Object.hasOwn(report.testcase_descriptions, result.testcase)
        ? report.testcase_descriptions[result.testcase]
        : undefined;
      group.testcases.push((testcase = { testcase: result.testcase, description: description ?? result.testcase, results: [] }));
    }
    testcase.results.push(result);
  }
  // SYSTEM's findings (the engine's version, "testing stopped here, see the findings above") read after the
  // modules they sum up, so "above" is above.
  return [...modules.values()].sort((a, b) => Number(a.module === 'SYSTEM') - Number(b.module === 'SYSTEM'));
}

/** Tags that say the parent zone delegates no such domain (the engine's, and those of newer Zonemaster versions). */
const NO_DELEGATION_TAGS: ReadonlySet<string> = new Set([
  'NO_PARENT',
  'NO_GLUE_PREVENTS_NAMESERVER_TESTS',
  'B01_NO_CHILD',
  'B02_NO_DELEGATION',
]);

/**
 * Whether the domain is not delegated (or does not exist): Basic01, the test of the delegation itself, failed, or a
 * finding's tag (from get_test_evidence, when given) says there is no delegation.
 */
export function delegationFailed(results: readonly TestResult[], tags: readonly string[] = []): boolean {
  return (
    results.some((r) => r.testcase.toLowerCase() === 'basic01' && severity(r.level) >= severity('ERROR')) ||
    tags.some((tag) => NO_DELEGATION_TAGS.has(tag))
  );
}

// Names compare without case: the engine asks with randomly cased names (RFC 5452 section 9.4 style), and
// findings that quote them would otherwise differ from run to run for an unchanged zone.
const key = (r: TestResult) => JSON.stringify([r.module, r.testcase, r.level, r.message.toLowerCase()]);

/**
 * The same finding said again (the engine repeats some once per server or query, as the reference
 * does) is listed once, with how often it came, where it first came.
 */
export function collapseRepeats(results: readonly TestResult[]): { result: TestResult; times: number }[] {
  const listed = new Map<string, { result: TestResult; times: number }>();
  for (const result of results) {
    const entry = listed.get(key(result));
    if (entry) entry.times++;
    else listed.set(key(result), { result, times: 1 });
  }
  return [...listed.values()];
}

/**
 * Findings of `after` that `before` did not have, and the reverse; a finding reported twice in one
 * and once in the other counts once as changed. Both reports must be in the same language.
 */
export function compareReports(
  before: readonly TestResult[],
  after: readonly TestResult[],
): { appeared: TestResult[]; disappeared: TestResult[]; unchanged: number } {
  const remaining = new Map<string, number>();
  for (const r of before) remaining.set(key(r), (remaining.get(key(r)) ?? 0) + 1);
  const appeared: TestResult[] = [];
  let unchanged = 0;
  for (const r of after) {
    const left = remaining.get(key(r)) ?? 0;
    if (left > 0) {
      remaining.set(key(r), left - 1);
      unchanged++;
    } else appeared.push(r);
  }
  const disappeared: TestResult[] = [];
  for (const r of [...before].reverse()) {
    const left = remaining.get(key(r)) ?? 0;
    if (left > 0) {
      remaining.set(key(r), left - 1);
      disappeared.unshift(r);
    }
  }
  return { appeared, disappeared, unchanged };
}
