// Writes as generators: a write yields each statement it needs and gets its result back, so one body
// runs both on SQLite, where statements are synchronous, and on PostgreSQL or MariaDB, where they are not.
//
// Group commit on SQLite: writes that reach the database in the same turn of the event loop share one
// transaction, so they pay for one commit instead of one each, and every caller hears back only once the
// COMMIT has returned. The batch runs synchronously on the connection, so no other statement can slip in
// between its own. Should any write of a batch fail (or the COMMIT), the whole batch is rolled back and
// each write runs again in a transaction of its own, so one bad write fails only its own request.
// PostgreSQL and MariaDB commit concurrent transactions together themselves; there each write is simply a transaction of its own.
import type { SyncSqlite } from '@app/database';
import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { Row, StoreDatabase, StoreSchema } from './schema.ts';

/** The statements of one write, in order; the generator's return value is the write's. */
export type WriteSteps<T> = Generator<CompiledQuery, T, QueryResult<Row>>;
export type Write<T> = () => WriteSteps<T>;
/** Steps a caller adds at the end of a write, given its value, in the same transaction (an Idempotency-Key's answer). */
export type AfterWrite<T> = (value: T) => WriteSteps<void>;

/** The write's steps, then `after`'s. */
export function* followedBy<T>(steps: WriteSteps<T>, after: AfterWrite<T>): WriteSteps<T> {
  const value = yield* steps;
  yield* after(value);
  return value;
}

export interface WriteQueue {
  run<T>(write: Write<T>): Promise<T>;
}

interface Queued {
  write: Write<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const queues = new WeakMap<StoreDatabase, WriteQueue>();

/** The one queue of a database, shared by every resource that writes to it. */
export function writeQueueOf(database: StoreDatabase): WriteQueue {
  let queue = queues.get(database);
  if (queue === undefined) {
    queue = database.sqlite === undefined ? runAsync(database.db) : groupCommit(database.sqlite);
    queues.set(database, queue);
  }
  return queue;
}

/** Runs a write's statements one after another on a transaction Kysely holds (a write within a larger one). */
export async function runSteps<T>(trx: Kysely<StoreSchema>, steps: WriteSteps<T>): Promise<T> {
  let step = steps.next();
  while (step.done !== true) {
    let result: QueryResult<Row>;
    try {
      result = await trx.executeQuery<Row>(step.value);
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next(result);
  }
  return step.value;
}

function runAsync(db: Kysely<StoreSchema>): WriteQueue {
  return {
    // One transaction per write, so what a write queues (its webhook events) commits with it or not at all.
    run<T>(write: Write<T>): Promise<T> {
      return db.transaction().execute((trx) => runSteps(trx, write()));
    },
  };
}

const BEGIN = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

function groupCommit(sqlite: SyncSqlite): WriteQueue {
  let waiting: Queued[] = [];

  function runSync<T>(write: Write<T>): T {
    const steps = write();
    let step = steps.next();
    while (step.done !== true) {
      let result: QueryResult<Row>;
      try {
        result = sqlite.execute(step.value);
      } catch (error) {
        step = steps.throw(error);
        continue;
      }
      step = steps.next(result);
    }
    return step.value;
  }

  /** Runs the writes in the transaction just begun, then commits: all their values, or the first failure with nothing written. */
  function runAndCommit(writes: readonly Write<unknown>[]): unknown[] {
    try {
      const values = writes.map(runSync);
      sqlite.execute(COMMIT);
      return values;
    } catch (error) {
      if (sqlite.inTransaction) sqlite.execute(ROLLBACK);
      throw error;
    }
  }

  function settle(queued: Queued, begun: boolean): void {
    try {
      if (!begun) sqlite.execute(BEGIN);
      queued.resolve(runAndCommit([queued.write])[0]);
    } catch (error) {
      queued.reject(error);
    }
  }

  function flush(): void {
    // A transaction Kysely opened is still waiting on its caller; the batch goes once it has ended.
    if (sqlite.inTransaction) {
      setImmediate(flush);
      return;
    }
    const batch = waiting;
    waiting = [];
    try {
      sqlite.execute(BEGIN);
    } catch (error) {
      // Another process held the write lock past the busy timeout: each write alone would only wait as long again.
      for (const queued of batch) queued.reject(error);
      return;
    }
    if (batch.length === 1) {
      settle(batch[0], true);
      return;
    }
    let values: unknown[];
    try {
      values = runAndCommit(batch.map((queued) => queued.write));
    } catch {
      // Nothing of the batch was written; the failure, whoever caused it, is found again alone.
      for (const queued of batch) settle(queued, false);
      return;
    }
    batch.forEach((queued, i) => queued.resolve(values[i]));
  }

  return {
    run<T>(write: Write<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        // After the poll phase: every request read in this turn has queued its write by then.
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ write, resolve, reject } as Queued);
      });
    },
  };
}
