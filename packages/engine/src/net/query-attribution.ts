// Which test case a query is sent for: the runner runs each test case inside its scope, and the network
// reads it when it sends, so a run's query log says which test case asked (the zone's facts are promises
// that the first test case needing them starts, so their queries count for that one).
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

export function inTestCase<T>(testcase: string, run: () => T): T {
  return scope.run(testcase, run);
}

/** The test case running now, or undefined while the run sets up the zone. */
export function currentTestCase(): string | undefined {
  return scope.getStore();
}
