// The reference runs its test cases one after another, and one thing carries over from one to the next
// through a server: a transport whose plain SOA query (no EDNS, no DO) got no answer is not used again.
// So a later test case sees silence where an earlier one marked it. Our test cases run at the same
// time; instead of waiting for whole earlier modules, a query waits only while it could matter: the
// lane (address and transport) is still undecided (it has neither answered a plain SOA query nor been
// marked silent) and a test case the reference runs earlier is still running. An undecided lane gets one
// plain SOA query of its own: once answered, no later query can mark it silent, and everyone may go.
// The lab's servers, like most on the Internet, answer a question the same whatever came before it;
// this is what keeps our findings the reference's without running its order.

import { AsyncLocalStorage } from 'node:async_hooks';

/** A query of a lookup made ahead of its turn, given up once the test cases it follows have finished. */
export class Abandoned extends Error {
  constructor() {
    super('a lookup made ahead of its turn was given up');
  }
}

const ahead = new AsyncLocalStorage<boolean>();

/**
 * Runs a lookup ahead of its test case's turn (its queries still in that test case's scope): a query
 * waits for an undecided lane only until it is decided, never for the earlier test cases, and once they
 * have finished every query not yet sent is given up (`Abandoned`). The test case makes the lookup
 * again in its turn, finding the answers that came.
 */
export function lookAhead<T>(run: () => Promise<T>): Promise<T> {
  return ahead.run(true, run);
}

export interface OrderOptions {
  /** When the test cases that the given one follows have all finished; undefined when they have (or it follows none). */
  earlierDone: (testcase: string) => Promise<unknown> | undefined;
}

export class ServerOrder {
  readonly #options: OrderOptions;
  /** Lanes ('address:transport') that answered a plain SOA query or were marked silent: nothing more can change for them. */
  readonly #decided = new Set<string>();
  readonly #waiting = new Map<string, PromiseWithResolvers<void>>();
  readonly #probed = new Set<string>();

  constructor(options: OrderOptions) {
    this.#options = options;
  }

  /** The lane can no longer be marked silent (it answered a plain SOA query), or already is. */
  decide(lane: string): void {
    this.#decided.add(lane);
    this.#waiting.get(lane)?.resolve();
    this.#waiting.delete(lane);
  }

  isDecided(lane: string): boolean {
    return this.#decided.has(lane);
  }

  /**
   * Undefined when a query of `testcase` may go to `lane` now; else a promise for when it may look again.
   * `probe` is started once per lane that someone waits for: a plain SOA query whose answer decides it.
   */
  wait(lane: string, testcase: string | undefined, probe: () => void): Promise<unknown> | undefined {
    if (testcase === undefined) return undefined;
    const early = ahead.getStore() === true;
    const earlier = this.#options.earlierDone(testcase);
    if (early && earlier === undefined) return Promise.reject(new Abandoned());
    if (this.#decided.has(lane) || earlier === undefined) return undefined;
    let decided = this.#waiting.get(lane);
    if (!decided) {
      decided = Promise.withResolvers<void>();
      this.#waiting.set(lane, decided);
    }
    if (!this.#probed.has(lane)) {
      this.#probed.add(lane);
      probe();
    }
    // Ahead of its turn it waits for the lane alone, and asks again (to be given up if too late).
    return early ? decided.promise : Promise.race([earlier, decided.promise]);
  }
}
