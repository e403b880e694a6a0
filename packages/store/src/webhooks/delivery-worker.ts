// Sends the outbox's events. Each instance runs one worker; a worker delivers a subscription's events only while it
// holds that subscription's lease (a compare-and-set on the subscription row), so across any number of instances each
// subscription is served by one at a time, in the order its events were written. Where the database has session
// locks, a lease whose holder's process is gone is taken over at once (the lock died with its connection); else once
// its time has run out. A failed delivery is retried with backoff and jitter until its retry window (24 hours) has
// passed, and later events of that subscription wait behind it.
import { randomBytes } from 'node:crypto';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { SessionLock } from '@app/database';
import type { Row, StoreDatabase, StoreSchema } from '../db/schema.ts';
import { attemptDelivery, type Sending } from './delivery-attempt.ts';
import { databaseNow } from '../db/database-clock.ts';
import { defaultRetry, deliveryRecords, recordFailure, type RetrySchedule } from './delivery-records.ts';
import type { Sender } from './send.ts';
import type { SigningKeys } from './standard-signature.ts';
import type { SubscriberCheck } from './subscriber-scopes.ts';

export { backoffMs, defaultRetry, type RetrySchedule } from './delivery-records.ts';

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
  /** This worker's name, and the session lock held under it while its process lives (holdSessionLock). */
  liveness?: { instance: string; lock: SessionLock };
}

/** A worker's name: its process id first (the soak finds the process holding leases by it), then its own part. */
export const workerInstanceName = () => `${process.pid}-${randomBytes(6).toString('hex')}`;

export interface DeliveryWorker {
  readonly instance: string;
  stop(): Promise<void>;
}

/** Delivered and given-up events stay in the log this long. */
export const LOG_KEPT_MS = 30 * 24 * 3_600_000;
const PURGE_EVERY_MS = 3_600_000;

const iso = (ms: number) => new Date(ms).toISOString();
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What one worker runs with: its options with their defaults, its instance name and its lease's length. */
interface Worker {
  readonly db: Kysely<StoreSchema>;
  readonly writes: Kysely<StoreSchema>;
  readonly instance: string;
  readonly retry: RetrySchedule;
  readonly pollMs: number;
  readonly sending: Sending;
  /** Renewed before each attempt, which may try the URL and then the fallback. After a crash, another instance takes the subscription over once this has run out. */
  readonly leaseMs: number;
  readonly clock: () => number;
  readonly concurrency: number;
  readonly batchSize: number;
  readonly options: DeliveryOptions;
  /** When each other worker was last seen alive (its session lock held): asked again after LIVENESS_SEEN_MS. */
  readonly seenAlive: Map<string, number>;
  stopped: boolean;
}

const LIVENESS_SEEN_MS = 1000;

function workerOf(database: StoreDatabase, options: DeliveryOptions): Worker {
  const timeoutMs = options.timeoutMs ?? 10_000;
  // The store's time: a sandbox's moves, and retry schedules play out with it.
  const clock = () => databaseNow(database);
  return {
    clock,
    db: database.db,
    writes: options.writes ?? database.db,
    instance: options.liveness?.instance ?? workerInstanceName(),
    retry: options.retry ?? defaultRetry,
    pollMs: options.pollMs ?? 1000,
    sending: { sender: options.sender, signing: options.signing, timeoutMs, clock },
    leaseMs: 2 * timeoutMs + 5000,
    concurrency: options.concurrency ?? 4,
    // One read per this many sends; the read waits for no record to be written (serve says how).
    batchSize: options.batchSize ?? 2000,
    options,
    seenAlive: new Map(),
    stopped: false,
  };
}

/** Takes (or renews) the subscription's lease for this worker; false while another live instance holds it. */
async function lease(worker: Worker, id: number): Promise<boolean> {
  const lock = worker.options.liveness?.lock;
  // Without its own lock, others take this worker for gone: it must not serve.
  if (lock !== undefined && !lock.held) return false;
  const now = worker.clock();
  const take = async (from: string | undefined) => {
    const result = await worker.writes
      .updateTable('webhooks')
      .set({ lease_owner: worker.instance, lease_until: iso(now + worker.leaseMs) })
      .where('id', '=', id)
      .where((eb) =>
        from === undefined
          ? eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', iso(now)), eb('lease_owner', '=', worker.instance)])
          : eb('lease_owner', '=', from),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  };
  if (await take(undefined)) return true;
  // A lease with time left: taken over at once when its holder's process is gone (its session lock freed).
  if (lock === undefined) return false;
  const holder = await worker.db.selectFrom('webhooks').select('lease_owner').where('id', '=', id).executeTakeFirst();
  const owner = holder?.lease_owner;
  if (typeof owner !== 'string' || owner === worker.instance) return false;
  if (performance.now() - (worker.seenAlive.get(owner) ?? -Infinity) < LIVENESS_SEEN_MS) return false;
  if ((await lock.heldOf([owner])).has(owner)) {
    worker.seenAlive.set(owner, performance.now());
    return false;
  }
  worker.seenAlive.delete(owner);
  return await take(owner);
}

async function release(worker: Worker, id: number): Promise<void> {
  await worker.writes
    .updateTable('webhooks')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_owner', '=', worker.instance)
    .execute();
}

const subscriptionOf = (worker: Worker, id: number) => worker.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();

/** The subscription when its events may be sent; one whose app lost the scopes its event needs is suspended. */
async function usableSubscription(worker: Worker, id: number): Promise<Row | undefined> {
  const subscription = await subscriptionOf(worker, id);
  if (subscription === undefined || subscription.suspended_at !== null) return undefined;
  const lost = await worker.options.check?.problem(subscription);
  if (lost === undefined) return subscription;
  // Its events wait, unsent, until an admin resumes it (the app may be granted the scope again).
  await worker.options.check?.suspend(subscription, lost);
  return undefined;
}

/** The latest an attempt may start after the lease was taken: it must end (URL, then fallback) before the lease does. */
const attemptDeadline = (worker: Worker) => worker.leaseMs - 2 * worker.sending.timeoutMs - 1000;

interface LeaseKeeper {
  /** Whether an attempt may start now; waits for a renewal only when the lease held is about to run short. */
  held(): Promise<boolean>;
  /** Waits for a renewal under way, so that none lands after the release. */
  settle(): Promise<void>;
}

/**
 * Renews the subscription's lease (taken by the caller) in the background, halfway to the attempt deadline: sends go
 * on meanwhile, where waiting for the write (on SQLite, the API thread's, busy under load) would pause them.
 */
function leaseKeeper(worker: Worker, id: number): LeaseKeeper {
  let leasedAt = worker.clock();
  let lost = false;
  let failure: Error | undefined;
  let renewing: Promise<void> | undefined;
  const deadline = attemptDeadline(worker);
  const renew = () => {
    const at = worker.clock();
    renewing = lease(worker, id)
      .then(
        (ok) => {
          if (ok) leasedAt = at;
          else lost = true;
        },
        (error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
          lost = true;
        },
      )
      .finally(() => (renewing = undefined));
  };
  return {
    async held() {
      if (worker.options.liveness?.lock.held === false) return false;
      if (renewing === undefined && !lost && worker.clock() - leasedAt > deadline / 2) renew();
      if (renewing !== undefined && worker.clock() - leasedAt > deadline) await renewing;
      if (failure !== undefined) throw failure;
      return !lost && worker.clock() - leasedAt <= deadline;
    },
    async settle() {
      await renewing;
    },
  };
}

/** Delivers one subscription's due events in order, while the lease (taken by the caller) holds. */
async function serve(worker: Worker, id: number): Promise<void> {
  let subscription = await usableSubscription(worker, id);
  if (subscription === undefined) return;
  const clientId = subscription.app_client_id;
  const secret = typeof clientId === 'string' ? await worker.options.secretOf(clientId) : undefined;
  const records = deliveryRecords(worker.writes, worker.clock);
  const leased = leaseKeeper(worker, id);
  try {
    while (!worker.stopped) {
      // The next few in order; each is sent only once the one before it is done. Those already sent whose records
      // are still being written are passed over, so the next batch needs no wait for those writes (taken before the
      // read: one written meanwhile is no longer pending, one written after the read is still in the copy).
      const sent = new Set(records.unwritten);
      const read = await worker.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('subscription_id', '=', id)
        .where('state', '=', 'pending')
        .orderBy('id')
        .limit(worker.batchSize + sent.size)
        .execute();
      if (read.length === 0) return;
      const batch = read.filter((delivery) => !sent.has(Number(delivery.id)));
      if (batch.length === 0) {
        await records.settle();
        continue;
      }
      // Read again after the batch: a change that came before its events (a rotated secret, a new URL) holds for them.
      subscription = await subscriptionOf(worker, id);
      if (subscription === undefined || subscription.suspended_at !== null) return;
      for (const delivery of batch) {
        if (worker.stopped || String(delivery.next_attempt_at) > iso(worker.clock())) return;
        if (!(await leased.held())) return;
        const { outcome, to } = await attemptDelivery(worker.sending, subscription, delivery, secret, records.tried);
        if (outcome.ok) {
          await records.delivered(Number(delivery.id), outcome.status, to);
          continue;
        }
        await records.settle();
        // Later events wait behind this one, so the receiver sees them in order.
        if (!(await recordFailure(worker.writes, worker.retry, delivery, outcome, worker.clock))) return;
      }
    }
  } finally {
    await leased.settle();
    await records.settle();
  }
}

/**
 * Subscriptions whose oldest pending event is due (the others wait behind a retry). Each oldest one is one index
 * lookup (the pending ones' index, migration 0480), so a backlog of thousands costs no more than a few. As min(id):
 * with ORDER BY id LIMIT 1, PostgreSQL may walk the primary key past every delivered row instead.
 */
async function dueSubscriptions(worker: Worker): Promise<number[]> {
  const oldestPending = (eb: ExpressionBuilder<StoreSchema, 'webhooks'>) =>
    eb
      .selectFrom('webhook_deliveries as d')
      .select('d.next_attempt_at')
      .where(
        'd.id',
        '=',
        eb
          .selectFrom('webhook_deliveries as p')
          .select(eb.fn.min('p.id').as('id'))
          .whereRef('p.subscription_id', '=', 'webhooks.id')
          .where('p.state', '=', 'pending'),
      );
  const due = await worker.db
    .selectFrom('webhooks')
    .select('webhooks.id')
    .where('webhooks.suspended_at', 'is', null)
    .where((eb) => eb(oldestPending(eb), '<=', iso(worker.clock())))
    .orderBy('webhooks.id')
    .limit(100)
    .execute();
  return due.map((row) => Number(row.id));
}

/** Removes delivered and given-up events past LOG_KEPT_MS, every hour; answers how to stop. */
function startPurge(worker: Worker): () => void {
  const purge = setInterval(() => {
    worker.writes
      .deleteFrom('webhook_deliveries')
      .where('state', 'in', ['delivered', 'failed'])
      .where('created_at', '<', iso(worker.clock() - LOG_KEPT_MS))
      .execute()
      .catch((error: unknown) => worker.options.log.warn(`purging the webhook log failed: ${messageOf(error)}`));
  }, PURGE_EVERY_MS);
  purge.unref();
  return () => clearInterval(purge);
}

export function startDeliveryWorker(database: StoreDatabase, options: DeliveryOptions): DeliveryWorker {
  const worker = workerOf(database, options);
  const serving = new Map<number, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let again = false;

  /** Starts serving each due subscription it can lease, up to `concurrency` at once. */
  async function tick(): Promise<void> {
    for (const id of await dueSubscriptions(worker)) {
      if (worker.stopped || serving.size >= worker.concurrency) break;
      if (serving.has(id) || !(await lease(worker, id))) continue;
      const run = serve(worker, id)
        .catch((error: unknown) => options.log.warn(`webhook delivery for subscription ${id} failed: ${messageOf(error)}`))
        .then(() => release(worker, id))
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
    if (worker.stopped) return;
    timer = setTimeout(wake, ms);
    timer.unref();
  }

  /** Looks at the outbox now (or right after the look already running). */
  function wake(): void {
    if (worker.stopped) return;
    if (ticking !== undefined) {
      again = true;
      return;
    }
    ticking = tick()
      .catch((error: unknown) => options.log.warn(`webhook outbox check failed: ${messageOf(error)}`))
      .finally(() => {
        ticking = undefined;
        if (again) {
          again = false;
          wake();
        } else schedule(worker.pollMs);
      });
  }

  const unsubscribe = options.nudges(wake);
  schedule(0);
  const stopPurge = startPurge(worker);
  return {
    instance: worker.instance,
    async stop() {
      worker.stopped = true;
      clearTimeout(timer);
      stopPurge();
      unsubscribe();
      await ticking;
      await Promise.all(serving.values());
    },
  };
}
