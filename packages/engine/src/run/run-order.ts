// The order of a run's test cases. Every test case starts at once; what the reference runs before a given
// one it must not overtake where that can change what it gets: its queries to a server wait for those
// test cases (net/server-order.ts), while its findings wait only for the ones it reads.
import type { Finding } from '../finding.ts';
import { moduleOrder, type PlannedTestCase } from './registry.ts';

const rank = (moduleName: string): number => (moduleOrder as readonly string[]).indexOf(moduleName);

/** Test cases the reference runs before each planned one: Basic for all others, `after`, `afterEarlierModules`, `inOrder`. */
function precedence(plan: readonly PlannedTestCase[]): Map<string, string[]> {
  const precedes = new Map<string, string[]>();
  const basicPlanned = plan.filter((p) => p.module.name === 'BASIC').map((p) => p.testCase.id);
  for (const { module, testCase } of plan) {
    const basicFirst = module.name === 'BASIC' ? [] : basicPlanned;
    const earlierModules = testCase.afterEarlierModules
      ? plan.filter((p) => rank(p.module.name) < rank(module.name)).map((p) => p.testCase.id)
      : [];
    const sameModule = module.inOrder ? plan.filter((p) => p.module === module).map((p) => p.testCase.id) : [];
    precedes.set(testCase.id, [
      ...new Set([...basicFirst, ...(testCase.after ?? []), ...earlierModules, ...sameModule.slice(0, sameModule.indexOf(testCase.id))]),
    ]);
  }
  return precedes;
}

export class RunOrder {
  readonly #precedes: Map<string, string[]>;
  readonly #produced = new Map<string, Promise<Finding[]>>();
  readonly #finished = new Set<string>();
  /** Basic's test cases in the plan: every other test case reads their findings. */
  readonly basicIds: readonly string[];

  constructor(plan: readonly PlannedTestCase[]) {
    this.#precedes = precedence(plan);
    this.basicIds = plan.filter((p) => p.module.name === 'BASIC').map((p) => p.testCase.id);
  }

  start(id: string, run: Promise<Finding[]>): void {
    this.#produced.set(
      id,
      run.finally(() => this.#finished.add(id)),
    );
  }

  /** Settles once the test cases the reference runs before `testcase` are done (undefined if none is running). */
  readonly earlierDone = (testcase: string): Promise<unknown> | undefined => {
    // A test case not in the plan (not selected) is not waited for.
    const running = (this.#precedes.get(testcase) ?? []).filter((id) => this.#produced.has(id) && !this.#finished.has(id));
    return running.length === 0 ? undefined : Promise.allSettled(running.flatMap((id) => this.#produced.get(id) ?? []));
  };

  /** The findings of the planned test cases among `ids` (one not planned has none to wait for). */
  async findingsOf(ids: readonly string[]): Promise<Finding[]> {
    return (await Promise.all([...new Set(ids)].flatMap((id) => this.#produced.get(id) ?? []))).flat();
  }

  /** Each planned test case's findings, in plan order, so the output never depends on timing. */
  inPlanOrder(plan: readonly PlannedTestCase[]): Promise<Finding[][]> {
    return Promise.all(plan.map((entry) => this.#produced.get(entry.testCase.id) ?? Promise.resolve([])));
  }
}
