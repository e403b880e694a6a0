// Group commit on SQLite: writes that reach the database in the same turn of the event loop share one
// transaction, so they pay for one commit instead of one each, and every caller hears back only once the
// COMMIT has returned. Should any write of a batch fail (or the COMMIT), the whole batch is rolled back and
// each write runs again on its own, so one bad write fails only its own request: the cost of a savepoint
// per write is paid only in that rare case. PostgreSQL and MariaDB commit concurrent transactions together
// themselves; there a write just runs.
import type { Kysely } from 'kysely';
import type { StoreDatabase, StoreSchema } from './schema.ts';

/** A write, given the connection to run every one of its statements on. */
export type Write<T> = (db: Kysely<StoreSchema>) => Promise<T>;

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
    queue = database.dialect === 'sqlite' ? groupCommit(database.db) : { run: (write) => write(database.db) };
    queues.set(database, queue);
  }
  return queue;
}

function groupCommit(db: Kysely<StoreSchema>): WriteQueue {
  let waiting: Queued[] = [];

  function inOneTransaction(batch: Queued[]): Promise<unknown[]> {
    return db.transaction().execute(async (trx) => {
      const values: unknown[] = [];
      for (const { write } of batch) values.push(await write(trx));
      return values;
    });
  }

  async function oneByOne(batch: Queued[]): Promise<void> {
    for (const queued of batch) {
      try {
        queued.resolve(await queued.write(db));
      } catch (error) {
        queued.reject(error);
      }
    }
  }

  function flush(): void {
    const batch = waiting;
    waiting = [];
    // Alone, a write commits by itself: no transaction to pay for.
    if (batch.length === 1) {
      void oneByOne(batch);
      return;
    }
    inOneTransaction(batch).then(
      (values) => batch.forEach((queued, i) => queued.resolve(values[i])),
      // Nothing of the batch was written; the failure, whoever caused it, is found again alone.
      () => oneByOne(batch),
    );
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
