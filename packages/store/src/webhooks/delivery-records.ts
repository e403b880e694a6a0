// What a subscription's sends leave in the database: its attempts, runs of delivered events written together while
// the next ones are sent, and a failed event with its next attempt (exponential backoff with jitter, within the
// retry window) or given up once the window has passed.
import type { Kysely } from 'kysely';
import type { Row, StoreSchema } from '../db/schema.ts';
import { clip, type Tried } from './delivery-attempt.ts';

export interface RetrySchedule {
  /** Wait before the second attempt; grows by `growth` with each failure. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** What each failure multiplies the wait by; 2 when not given. */
  growth?: number;
  /** How long after the event attempts go on; the last one falls at its end. */
  windowMs: number;
}

// Growing by a quarter, each wait is about a quarter of the time the receiver has been failing so far (less with the
// jitter): a receiver back after an outage gets the events waiting for it within about a quarter of that outage (2
// minutes: within 40 s), where doubling could leave it waiting as long again. 47-71 attempts in 24 hours.
export const defaultRetry: RetrySchedule = { firstDelayMs: 10_000, maxDelayMs: 3_600_000, windowMs: 24 * 3_600_000, growth: 1.25 };

/** The next wait: first × growth^(failures−1), capped, then jittered down by up to half so retries spread out. */
export function backoffMs(retry: RetrySchedule, failures: number, random = Math.random): number {
  const full = Math.min(retry.maxDelayMs, retry.firstDelayMs * (retry.growth ?? 2) ** Math.min(failures - 1, 60));
  return Math.round(full * (0.5 + random() / 2));
}

/** Sent events are recorded (one UPDATE) every this many or this soon after the first, while the sends go on. */
const RECORD_EVERY = 100;
const RECORD_WITHIN_MS = 25;

const iso = (ms: number) => new Date(ms).toISOString();

export interface DeliveryRecords {
  /** The attempts made since the last write; the sends push to it. */
  readonly tried: Tried[];
  /** Events delivered whose record is not written yet: still `pending` to a reader of the table. */
  readonly unwritten: ReadonlySet<number>;
  /** An event delivered; written with the others of its run (same status, same URL). */
  delivered(deliveryId: number, status: number, to: string): Promise<void>;
  /** Writes what was sent so far and waits until all of it is written; throws what a write threw. */
  settle(): Promise<void>;
}

/**
 * Successes are recorded together (one UPDATE for a run of them, not one each), written while the next ones are
 * sent; a crash before that sends them again, which receivers already expect (at least once, same X-AC-Delivery).
 */
/** `clock` is the store's time (a sandbox's moves); the batching of records keeps real time. */
export function deliveryRecords(writes: Kysely<StoreSchema>, clock: () => number): DeliveryRecords {
  let done: { ids: number[]; status: number; to: string; since: number } | undefined;
  const tried: Tried[] = [];
  const unwritten = new Set<number>();
  let writing: Promise<void> = Promise.resolve();
  let writeFailed: Error | undefined;

  const queueRecord = () => {
    const attempts = tried.splice(0);
    const run = done;
    done = undefined;
    writing = writing
      .then(async () => {
        if (attempts.length > 0) await writes.insertInto('webhook_attempts').values(attempts).execute();
        if (run === undefined) return;
        const at = iso(clock());
        await writes
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            attempts: eb('attempts', '+', 1),
            last_attempt_at: at,
            last_status: run.status,
            state: 'delivered',
            last_error: null,
            delivered_at: at,
            delivered_to: run.to,
          }))
          .where('id', 'in', run.ids)
          .execute();
        for (const id of run.ids) unwritten.delete(id);
      })
      .catch((error: unknown) => {
        writeFailed ??= error instanceof Error ? error : new Error(String(error));
      });
  };

  async function settle(): Promise<void> {
    queueRecord();
    await writing;
    if (writeFailed !== undefined) {
      const error = writeFailed;
      writeFailed = undefined;
      throw error;
    }
  }

  return {
    tried,
    unwritten,
    async delivered(deliveryId, status, to) {
      if (done !== undefined && (done.status !== status || done.to !== to)) await settle();
      done ??= { ids: [], status, to, since: Date.now() };
      done.ids.push(deliveryId);
      unwritten.add(deliveryId);
      // The backlog a reader sees shrinks as sends go, not only at the end of a batch.
      if (done.ids.length >= RECORD_EVERY || Date.now() - done.since >= RECORD_WITHIN_MS) queueRecord();
    },
    settle,
  };
}

/** Records a failed attempt at `delivery`: its next attempt, or given up past the retry window (answered true). */
export async function recordFailure(
  writes: Kysely<StoreSchema>,
  retry: RetrySchedule,
  delivery: Row,
  outcome: { status: number | undefined; error: string },
  clock: () => number,
): Promise<boolean> {
  const now = clock();
  const attempts = Number(delivery.attempts) + 1;
  const windowEnd = Date.parse(String(delivery.created_at)) + retry.windowMs;
  const givenUp = now >= windowEnd;
  await writes
    .updateTable('webhook_deliveries')
    .set({
      attempts,
      last_attempt_at: iso(now),
      last_status: outcome.status ?? null,
      state: givenUp ? 'failed' : 'pending',
      last_error: clip(outcome.error),
      next_attempt_at: iso(Math.min(now + backoffMs(retry, attempts), windowEnd)),
    })
    .where('id', '=', delivery.id as number)
    .execute();
  return givenUp;
}
