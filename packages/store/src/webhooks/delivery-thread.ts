// The delivery worker in a worker_thread of its own, with its own database connection: under a write load the
// API's event loop turns slowly (each turn serves many requests), and a worker sharing it sent one event per
// turn. Here each send waits only for the receiver. The API thread tells it of queued events ('wake').
import { parentPort, workerData } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import { holdSessionLock, openDatabase, type SessionLock } from '@app/database';
import { authContext } from '../auth/context.ts';
import { secretOf } from '../auth/apps.ts';
import type { AuthTables } from '../auth/schema.ts';
import { dialectSqlOf } from '../db/dialects/of.ts';
import type { StoreDatabase, StoreSchema } from '../db/schema.ts';
import { startDeliveryWorker, workerInstanceName } from './delivery-worker.ts';
import { setDatabaseClock } from '../db/database-clock.ts';
import { followSandboxClock } from '../db/sandbox-clock.ts';
import { forwardingKysely, isForwardedAnswer } from './forwarded-writes.ts';
import { closeSender, type Sender } from './send.ts';
import { signingKeys } from './standard-signature.ts';
import { subscriberCheck } from './subscriber-scopes.ts';
import { targetPolicy } from './target-policy.ts';
import type { DeliveryThreadData, FromDeliveryThread, ToDeliveryThread } from './delivery-thread-messages.ts';

const port = parentPort;
if (port === null) throw new Error('delivery-thread.ts runs as a worker thread');
const data = workerData as DeliveryThreadData;
const tell = (message: FromDeliveryThread) => port.postMessage(message);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const log = { warn: (message: string) => tell({ kind: 'warn', message }) };

const database = await openDatabase<StoreSchema>(data.databaseUrl, { poolSize: 2 });
const sandboxClock = data.sandbox === true ? await followSandboxClock(database.db) : undefined;
if (sandboxClock !== undefined) setDatabaseClock(database, sandboxClock.now);
const auth = authContext({ db: database.db as unknown as Kysely<AuthTables>, dialect: database.dialect, key: data.key });
// One writer (SQLite): reads on this thread's own connection, writes on the API's (forwarded-writes.ts says why).
const forwarded = dialectSqlOf(database).oneWriter ? forwardingKysely(port) : undefined;
const writing: StoreDatabase = forwarded === undefined ? database : { ...database, db: forwarded.db };
const sender: Sender = { policy: targetPolicy(data.allowedNetworks), ca: data.ca };
const wakes = new Set<() => void>();
const instance = workerInstanceName();
// Held while this process lives, so another instance takes its subscriptions over at once if it is killed.
const lock = await holdSessionLock(data.databaseUrl, instance).catch((error: unknown): SessionLock | undefined => {
  log.warn(`webhook delivery: no session lock, a killed instance's subscriptions wait out their lease (${messageOf(error)})`);
  return undefined;
});
const worker = startDeliveryWorker(database, {
  sender,
  check: subscriberCheck(writing),
  signing: signingKeys(data.key),
  secretOf: (clientId) => secretOf(auth, clientId),
  ...(data.retry === undefined ? {} : { retry: data.retry }),
  ...(data.pollMs === undefined ? {} : { pollMs: data.pollMs }),
  ...(data.timeoutMs === undefined ? {} : { timeoutMs: data.timeoutMs }),
  ...(forwarded === undefined ? {} : { writes: forwarded.db }),
  nudges: (wake) => {
    wakes.add(wake);
    return () => wakes.delete(wake);
  },
  log,
  ...(lock === undefined ? {} : { liveness: { instance, lock } }),
});

port.on('message', (message: ToDeliveryThread) => {
  if (isForwardedAnswer(message)) return forwarded?.answer(message);
  if (message === 'wake') for (const wake of wakes) wake();
  if (message === 'stop') {
    void worker
      .stop()
      .then(() => closeSender(sender))
      .then(() => sandboxClock?.stop())
      .then(() => lock?.close())
      .then(() => database.close())
      .catch((error: unknown) => log.warn(`stopping webhook delivery: ${messageOf(error)}`))
      .finally(() => {
        tell({ kind: 'stopped' });
        port.close();
      });
  }
});
tell({ kind: 'ready', instance: worker.instance });
