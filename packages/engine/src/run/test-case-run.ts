// One planned test case's run: it waits for the findings it reads (Basic's, and those named in `after`),
// stops where Basic's gate closes, checks its precondition, then runs and frames its messages as findings
// (TEST_CASE_START/END, and MODULE_ERROR for a failure or for a tag the test case does not declare).
import type { Finding, Message } from '../finding.ts';
import type { TestContext } from '../framework/test-case.ts';
import { inTestCase } from '../net/query-attribution.ts';
import { isTestCaseEnabled, type Profile } from '../profile/profile.ts';
import type { Zone } from '../zone/tested-zone.ts';
import type { PlannedTestCase } from './registry.ts';
import type { RunOrder } from './run-order.ts';
import { systemTestCase, type FindingMaker } from './run-findings.ts';

export interface TestCaseRunContext {
  domain: string;
  /** Undefined when the name cannot be a zone: then no test case's precondition holds. */
  zone: Zone | undefined;
  profile: Profile;
  signal: AbortSignal;
  /** Whether Basic gates the run: other test cases run only where a delegation and an answering server were found. */
  gated: boolean;
  order: RunOrder;
  finding: FindingMaker;
}

/** Basic's verdict: a delegation exists and a server answered SOA with authority. */
export function canContinue(findings: readonly Finding[]): boolean {
  const basic = new Set(findings.filter((f) => f.module === 'BASIC').map((f) => f.tag));
  return basic.has('B02_AUTH_RESPONSE_SOA') && !basic.has('B02_NO_DELEGATION');
}

/** The test case's findings, or null when Basic's gate keeps it from running (it is then not counted as done). */
export async function runTestCase({ module, testCase, explicit }: PlannedTestCase, run: TestCaseRunContext): Promise<Finding[] | null> {
  const { domain, zone, profile, signal, finding } = run;
  const own: Finding[] = [];
  const enabled = explicit || isTestCaseEnabled(profile, testCase.id);
  const contextWith = (earlier: readonly Finding[]): TestContext => ({
    domain,
    get zone(): Zone {
      if (!zone) throw new Error(`"${domain}" is not a usable domain name`);
      return zone;
    },
    profile,
    signal,
    earlier,
  });
  const beside =
    testCase.besideBasic && zone && enabled && !testCase.precondition
      ? inTestCase(testCase.id, () => testCase.run(contextWith([])))
      : undefined;
  // Its outcome is read below unless Basic's gate closes; then nobody waits for it.
  beside?.catch(() => {});
  const before = await run.order.findingsOf([...(module.name === 'BASIC' ? [] : run.order.basicIds), ...(testCase.after ?? [])]);
  if (module.name !== 'BASIC' && run.gated && !canContinue(before)) return null;
  signal.throwIfAborted();
  const context = contextWith(before);
  const record = (moduleName: string, testcase: string, message: Message): void => {
    own.push(finding(moduleName, testcase, message));
    if (!testCase.tags.includes(message.tag)) {
      own.push(
        finding('SYSTEM', testCase.id, {
          tag: 'MODULE_ERROR',
          args: { module: module.name, msg: `${testCase.id} emitted ${message.tag}, a tag it does not declare` },
        }),
      );
    }
  };
  const precondition = zone ? (testCase.precondition?.(context) ?? { run: true }) : { run: false as const };
  if (!precondition.run) {
    // The reference reports this outside any test case.
    if ('instead' in precondition && precondition.instead) record(module.name, systemTestCase, precondition.instead);
  } else if (enabled) {
    own.push(finding(module.name, testCase.id, { tag: 'TEST_CASE_START', args: { testcase: testCase.id } }));
    try {
      for (const message of await (beside ?? inTestCase(testCase.id, () => testCase.run(context))))
        record(module.name, testCase.id, message);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      own.push(finding('SYSTEM', testCase.id, { tag: 'MODULE_ERROR', args: { module: module.name, msg: (error as Error).message } }));
    }
    own.push(finding(module.name, testCase.id, { tag: 'TEST_CASE_END', args: { testcase: testCase.id } }));
  }
  return own;
}
