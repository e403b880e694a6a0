// Copies of keyed requests sent at once, as a client that retries does: each copy of a key goes out with the
// same Idempotency-Key and body, and is sent again (to whichever instance `send` picks) until it gets an answer
// that is not "try again" (no connection, 409 while the first copy runs, 5xx). What each copy finally got is
// the measure: every copy of a key should have got the same bytes, and the key should have had one effect.

export interface Answer {
  status: number;
  text: string;
  /** Seconds the answer's Retry-After asks a client to wait (429, 503, 409 while the first copy runs). */
  retryAfterS?: number;
}

export interface KeyedCopies {
  keys: readonly string[];
  copies: number;
  /** One attempt of one copy; undefined when no answer came (the instance is down). */
  send(key: string, copy: number, attempt: number): Promise<Answer | undefined>;
  /** A key's copies start this long after the previous key's. */
  spacingMs: number;
  /** A copy still without an answer after this long gives up (it counts as unanswered). */
  giveUpMs: number;
  /** Once aborted, no further key is started (those under way go on); the outcome holds the keys started. */
  stop?: AbortSignal;
}

export interface KeyedOutcome {
  /** Every copy's final answer, by key (the keys started). */
  answers: Map<string, Answer[]>;
  /** Copies that never got an answer. */
  unanswered: number;
  attempts: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const final = (answer: Answer | undefined): answer is Answer =>
  answer !== undefined && answer.status < 500 && answer.status !== 409 && answer.status !== 429;

export async function sendKeyedCopies(load: KeyedCopies): Promise<KeyedOutcome> {
  const answers = new Map<string, Answer[]>();
  let unanswered = 0;
  let attempts = 0;
  async function copy(key: string, n: number): Promise<void> {
    const giveUp = Date.now() + load.giveUpMs;
    for (let attempt = 0; Date.now() < giveUp; attempt += 1) {
      attempts += 1;
      const answer = await load.send(key, n, attempt).catch(() => undefined);
      const waitS = answer?.retryAfterS ?? 0;
      if (final(answer)) {
        answers.get(key)?.push(answer);
        return;
      }
      // A careful client waits as long as Retry-After asks: retrying a 429 at once only spends the limit again.
      await sleep(waitS * 1000 + 100 + Math.random() * 200);
    }
    unanswered += 1;
  }
  const running: Promise<void>[] = [];
  for (const key of load.keys) {
    if (load.stop?.aborted === true) break;
    answers.set(key, []);
    for (let n = 0; n < load.copies; n += 1) running.push(copy(key, n));
    await sleep(load.spacingMs);
  }
  await Promise.all(running);
  return { answers, unanswered, attempts };
}

/** Keys whose copies got answers that differ in a byte (status or body). */
export function keysAnsweredDifferently(outcome: KeyedOutcome): string[] {
  return [...outcome.answers].filter(([, each]) => new Set(each.map((a) => `${a.status}\n${a.text}`)).size > 1).map(([key]) => key);
}

/** How many keys had each number of effects: {1: 1998, 0: 2} reads "1998 keys wrote once, 2 never". */
export function effectsPerKey(keys: readonly string[], effects: ReadonlyMap<string, number>): Record<number, number> {
  const tally: Record<number, number> = {};
  for (const key of keys) {
    const n = effects.get(key) ?? 0;
    tally[n] = (tally[n] ?? 0) + 1;
  }
  return tally;
}
