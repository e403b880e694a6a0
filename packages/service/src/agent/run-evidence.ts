// What the agent keeps of a run besides its findings: every query with its reply (stored with the test once it
// is finished), and while it runs, how many test cases are done and which queries are still unanswered
// (written every ACTIVITY_MS while something changed, so the web page can say what the test is waiting for).
import type { RunOptions } from '@app/engine';
import { loggedQuery, type Activity, type LoggedQuery } from '../db/test-evidence.ts';

const ACTIVITY_MS = 1000;
/** A query unanswered for less than this is not worth mentioning. */
const WAITING_AFTER_MS = 1000;

export class RunEvidence {
  readonly queries: LoggedQuery[] = [];
  readonly #inFlight = new Map<number, Activity['waiting'][number]>();
  #done = 0;
  #total = 0;
  #written = '';
  readonly #timer: NodeJS.Timeout;

  constructor(write: (activity: Activity) => Promise<void>) {
    this.#timer = setInterval(() => {
      const now = Date.now();
      const waiting = [...this.#inFlight.values()].filter((q) => now - q.since >= WAITING_AFTER_MS).sort((a, b) => a.since - b.since);
      const activity: Activity = { done: this.#done, total: this.#total, waiting };
      const text = JSON.stringify(activity);
      if (text === this.#written) return;
      this.#written = text;
      // Activity is a hint: a failed write waits for the next tick.
      write(activity).catch(() => undefined);
    }, ACTIVITY_MS);
    this.#timer.unref();
  }

  /** The run options that feed it; `onProgress` still goes to `progress`. */
  hooks(progress: (percent: number) => void): Pick<RunOptions, 'onExchange' | 'onSend' | 'onProgress'> {
    return {
      onSend: (sending) =>
        this.#inFlight.set(sending.id, {
          server: sending.server,
          qname: sending.qname,
          qtype: sending.qtype,
          since: Date.now(),
          ...(sending.testcase !== undefined && { testcase: sending.testcase }),
        }),
      onExchange: (exchange) => {
        if (exchange.id !== undefined) this.#inFlight.delete(exchange.id);
        this.queries.push(loggedQuery(exchange));
      },
      onProgress: (percent, detail) => {
        if (detail !== undefined) ({ done: this.#done, total: this.#total } = detail);
        progress(percent);
      },
    };
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
