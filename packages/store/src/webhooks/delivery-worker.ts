// Sends the outbox's events. Each instance runs one worker; a worker delivers a subscription's events
// only while it holds that subscription's lease (a compare-and-set on the subscription row), so across
// any number of instances each subscription is served by one at a time, in the order its events were
// written. A failed delivery is retried with exponential backoff and jitter until its retry window
// (24 hours) has passed, and later events of that subscription wait behind it.
import { randomBytes } from 'node:crypto';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Row, StoreDatabase, StoreSchema } from '../db/schema.ts';
import type { FailureType } from '../model/event-types.ts';
import { REPLY_HEAD_BYTES, sendSigned, type Outcome, type Sender } from './send.ts';
import type { SigningKeys } from './standard-signature.ts';
import type { SubscriberCheck } from './subscriber-scopes.ts';
import { databaseNow } from '../db/database-clock.ts';

export interface RetrySchedule {
  /** Wait before the second attempt; doubles with each failure. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** How long after the event attempts go on; the last one falls at its end. */
  windowMs: number;
}

export const defaultRetry: RetrySchedule = { firstDelayMs: 10_000, maxDelayMs: 3_600_000, windowMs: 24 * 3_600_000 };

export interface DeliveryOptions {
  sender: Sender;
  /** The App Secret of an App ID, which signs its subscriptions' deliveries. */
  secretOf: (clientId: string) => Promise<string | undefined>;
  retry?: RetrySchedule;
  /** How often the outbox is looked at when no local write announced anything (other instances' writes). */
  pollMs?: number;
  timeoutMs?: number;
  /** Subscriptions served at once. */
  concurrency?: number;
  /** Pending events of one subscription read (claimed) by one query; each is still sent after the one before it. */
  batchSize?: number;
  /** Calls `wake` whenever a write queued events (this process's writes; others are found by polling); returns how to stop. */
  nudges: (wake: () => void) => () => void;
  /** Where its writes go, when not to the database it reads (the delivery thread on SQLite: forwarded-writes.ts). */
  writes?: Kysely<StoreSchema>;
  /** The subscriptions' Standard Webhooks signing secrets; without them only X-AC-Signature is sent. */
  signing?: SigningKeys;
  /** Why a subscription may no longer be used (its app lost the scopes its event needs); it is then suspended. */
  check?: SubscriberCheck;
  log: { warn(message: string): void };
}

export interface DeliveryWorker {
  readonly instance: string;
  stop(): Promise<void>;
}

/** The next wait: first × 2^(failures−1), capped, then jittered down by up to half so retries spread out. */
export function backoffMs(retry: RetrySchedule, failures: number, random = Math.random): number {
  const full = Math.min(retry.maxDelayMs, retry.firstDelayMs * 2 ** Math.min(failures - 1, 30));
  return Math.round(full * (0.5 + random() / 2));
}

/** Delivered and given-up events stay in the log this long. */
export const LOG_KEPT_MS = 30 * 24 * 3_600_000;
const PURGE_EVERY_MS = 3_600_000;

/** Sent events are recorded (one UPDATE) every this many or this soon after the first, while the sends go on. */
const RECORD_EVERY = 100;
const RECORD_WITHIN_MS = 25;

const iso = (ms: number) => new Date(ms).toISOString();

/** An attempt as the console shows it. */
type Tried = Row;
function attemptRow(deliveryId: number, at: string, to: 'url' | 'fallback_url', outcome: Outcome): Tried {
  // PostgreSQL text holds no NUL.
  const head = (outcome.ok ? outcome.reply.slice(0, REPLY_HEAD_BYTES) : (outcome.head ?? null))?.replaceAll('\0', '\uFFFD') ?? null;
  return { delivery_id: deliveryId, attempted_at: at, sent_to: to, status: outcome.status ?? null, latency_ms: outcome.latencyMs, reply_head: head, error: outcome.ok ? null : clip(outcome.error) };
}
const clip = (text: string) => (text.length > 500 ? `${text.slice(0, 497)}...` : text);

export function startDeliveryWorker(database: StoreDatabase, options: DeliveryOptions): DeliveryWorker {
  const { db } = database;
  const writes = options.writes ?? db;
  const instance = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const retry = options.retry ?? defaultRetry;
  // The store's time (a sandbox's moves, and retry schedules play out with it); batching below keeps real time.
  const clock = () => databaseNow(database);
  const pollMs = options.pollMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Renewed before each attempt, which may try the URL and then the fallback. After a crash, another
  // instance takes the subscription over once this has run out.
  const leaseMs = 2 * timeoutMs + 5000;
  const concurrency = options.concurrency ?? 4;
  // Each batch ends with a wait for its records to be written: at 500 that pause cost a backlog of 1.4% under
  // bench:store's POST load, at 2000 it is 0.1-0.3%.
  const batchSize = options.batchSize ?? 2000;
  const serving = new Map<number, Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let again = false;

  async function lease(id: number): Promise<boolean> {
    const now = clock();
    const result = await writes
      .updateTable('webhooks')
      .set({ lease_owner: instance, lease_until: iso(now + leaseMs) })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', iso(now)), eb('lease_owner', '=', instance)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async function release(id: number): Promise<void> {
    await writes.updateTable('webhooks').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', instance).execute();
  }

  /** One attempt at the URL, then the fallback where the subscription has one; each send is kept for the console. */
  async function attempt(subscription: Row, delivery: Row, secret: string | undefined, tried: Tried[]): Promise<{ outcome: Outcome; to: 'url' | 'fallback_url' }> {
    if (secret === undefined) return { outcome: { ok: false, status: undefined, error: 'the app that made this subscription no longer exists', latencyMs: 0 }, to: 'url' };
    const deliveryId = String(delivery.id);
    const standard = options.signing === undefined ? undefined : { id: deliveryId, secrets: options.signing.of(subscription) };
    const send = async (url: string, to: 'url' | 'fallback_url') => {
      const at = iso(clock());
      const outcome = await sendSigned(options.sender, { url, event: String(delivery.event_type), deliveryId, body: String(delivery.body), secret, ...(standard === undefined ? {} : { standard }), timeoutMs, maxReplyBytes: 64 * 1024 });
      tried.push(attemptRow(Number(delivery.id), at, to, outcome));
      return outcome;
    };
    const first = await send(String(subscription.url), 'url');
    const fallback = subscription.fallback_url;
    if (first.ok || (subscription.failure_type as FailureType | null) !== 'Fallback' || typeof fallback !== 'string' || fallback === '') return { outcome: first, to: 'url' };
    const second = await send(fallback, 'fallback_url');
    if (second.ok) return { outcome: second, to: 'fallback_url' };
    return { outcome: { ok: false, status: second.status, error: `url: ${first.ok ? '' : first.error}; fallback_url: ${second.error}`, latencyMs: first.latencyMs + second.latencyMs }, to: 'fallback_url' };
  }

  /** Delivers one subscription's due events in order, while the lease (taken by the caller) holds. */
  async function serve(id: number): Promise<void> {
    const readSubscription = () => db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    let subscription = await readSubscription();
    if (subscription === undefined || subscription.suspended_at !== null) return;
    const lost = await options.check?.problem(subscription);
    if (lost !== undefined) {
      // Its events wait, unsent, until an admin resumes it (the app may be granted the scope again).
      await options.check?.suspend(subscription, lost);
      return;
    }
    const clientId = subscription.app_client_id;
    const secret = typeof clientId === 'string' ? await options.secretOf(clientId) : undefined;
    let leasedAt = clock();
    // Successes are recorded together (one UPDATE for a run of them, not one each), written while the next ones
    // are sent; a crash before that sends them again, which receivers already expect (at least once, same X-AC-Delivery).
    let done: { ids: number[]; status: number; to: string; since: number } | undefined;
    const tried: Tried[] = [];
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
            .set((eb) => ({ attempts: eb('attempts', '+', 1), last_attempt_at: at, last_status: run.status, state: 'delivered', last_error: null, delivered_at: at, delivered_to: run.to }))
            .where('id', 'in', run.ids)
            .execute();
        })
        .catch((error: unknown) => {
          writeFailed ??= error instanceof Error ? error : new Error(String(error));
        });
    };
    /** Records what was sent so far and waits until all of it is written. */
    const recordDone = async () => {
      queueRecord();
      await writing;
      if (writeFailed !== undefined) {
        const error = writeFailed;
        writeFailed = undefined;
        throw error;
      }
    };
    try {
      while (!stopped) {
        // The next few in order; each is sent only once the one before it is done.
        const batch = await db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', id).where('state', '=', 'pending').orderBy('id').limit(batchSize).execute();
        if (batch.length === 0) return;
        // Read again after the batch: a change that came before its events (a rotated secret, a new URL) holds for them.
        subscription = await readSubscription();
        if (subscription === undefined || subscription.suspended_at !== null) return;
        for (const delivery of batch) {
          if (stopped || String(delivery.next_attempt_at) > iso(clock())) return;
          // Renewed while an attempt (URL, then fallback) still fits in what is left of it.
          if (clock() - leasedAt > leaseMs - 2 * timeoutMs - 1000) {
            await recordDone();
            if (!(await lease(id))) return;
            leasedAt = clock();
          }
          const { outcome, to } = await attempt(subscription, delivery, secret, tried);
          if (outcome.ok) {
            if (done !== undefined && (done.status !== outcome.status || done.to !== to)) await recordDone();
            done ??= { ids: [], status: outcome.status, to, since: Date.now() };
            done.ids.push(Number(delivery.id));
            // The backlog a reader sees shrinks as sends go, not only at the end of a batch.
            if (done.ids.length >= RECORD_EVERY || Date.now() - done.since >= RECORD_WITHIN_MS) queueRecord();
            continue;
          }
          await recordDone();
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
          // Later events wait behind this one, so the receiver sees them in order.
          if (!givenUp) return;
        }
        await recordDone();
      }
    } finally {
      await recordDone();
    }
  }

  async function tick(): Promise<void> {
    // Subscriptions whose oldest pending event is due (the others wait behind a retry). Each oldest one is
    // one index lookup (subscription, state, id), so a backlog of thousands costs no more than a few.
    const oldestPending = (eb: ExpressionBuilder<StoreSchema, 'webhooks'>) =>
      eb.selectFrom('webhook_deliveries as d').select('d.next_attempt_at').whereRef('d.subscription_id', '=', 'webhooks.id').where('d.state', '=', 'pending').orderBy('d.id').limit(1);
    const due = await db
      .selectFrom('webhooks')
      .select('webhooks.id')
      .where('webhooks.suspended_at', 'is', null)
      .where((eb) => eb(oldestPending(eb), '<=', iso(clock())))
      .orderBy('webhooks.id')
      .limit(100)
      .execute();
    for (const { id: subscriptionId } of due) {
      const id = Number(subscriptionId);
      if (stopped || serving.size >= concurrency) break;
      if (serving.has(id) || !(await lease(id))) continue;
      const run = serve(id)
        .catch((error: unknown) => options.log.warn(`webhook delivery for subscription ${id} failed: ${error instanceof Error ? error.message : String(error)}`))
        .then(() => release(id))
        .catch(() => undefined)
        .finally(() => {
          serving.delete(id);
          wake();
        });
      serving.set(id, run);
    }
  }

  function schedule(ms: number): void {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(wake, ms);
    timer.unref();
  }

  /** Looks at the outbox now (or right after the look already running). */
  function wake(): void {
    if (stopped) return;
    if (ticking !== undefined) {
      again = true;
      return;
    }
    ticking = tick()
      .catch((error: unknown) => options.log.warn(`webhook outbox check failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        ticking = undefined;
        if (again) {
          again = false;
          wake();
        } else schedule(pollMs);
      });
  }

  const unsubscribe = options.nudges(wake);
  schedule(0);
  const purge = setInterval(() => {
    writes
      .deleteFrom('webhook_deliveries')
      .where('state', 'in', ['delivered', 'failed'])
      .where('created_at', '<', iso(clock() - LOG_KEPT_MS))
      .execute()
      .catch((error: unknown) => options.log.warn(`purging the webhook log failed: ${error instanceof Error ? error.message : String(error)}`));
  }, PURGE_EVERY_MS);
  purge.unref();

  return {
    instance,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(purge);
      unsubscribe();
      await ticking;
      await Promise.all(serving.values());
    },
  };
}
