// Group commit on SQLite: writes that reach the database in the same turn of the event loop share one
// transaction, so they pay for one commit instead of one each. Each write runs in its own savepoint, so
// one that fails undoes only itself, and every caller hears back only once the COMMIT has returned.
// PostgreSQL and MariaDB commit concurrent transactions together themselves; there a write just runs.
import { CompiledQuery, type Kysely } from 'kysely';
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

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const queues = new WeakMap<StoreDatabase, WriteQueue>();

// Compiled once, not per write.
const SAVEPOINT = CompiledQuery.raw('savepoint grouped_write');
const ROLLBACK = CompiledQuery.raw('rollback to grouped_write');
const RELEASE = CompiledQuery.raw('release grouped_write');

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

  async function inOneTransaction(batch: Queued[]): Promise<Outcome[]> {
    return db.transaction().execute(async (trx) => {
      const outcomes: Outcome[] = [];
      for (const { write } of batch) {
        await trx.executeQuery(SAVEPOINT);
        try {
          outcomes.push({ ok: true, value: await write(trx) });
        } catch (error) {
          outcomes.push({ ok: false, error });
          await trx.executeQuery(ROLLBACK);
        }
        await trx.executeQuery(RELEASE);
      }
      return outcomes;
    });
  }

  function flush(): void {
    const batch = waiting;
    waiting = [];
    const only = batch.length === 1 ? batch[0] : undefined;
    // Alone, a write commits by itself: no transaction or savepoint to pay for.
    if (only !== undefined) {
      only.write(db).then(only.resolve, only.reject);
      return;
    }
    inOneTransaction(batch).then(
      (outcomes) => {
        batch.forEach((queued, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok === true) queued.resolve(outcome.value);
          else queued.reject(outcome === undefined ? new Error('a grouped write has no outcome') : outcome.error);
        });
      },
      // The COMMIT (or the transaction itself) failed: nothing of the batch was written.
      (error: unknown) => {
        for (const queued of batch) queued.reject(error);
      },
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
