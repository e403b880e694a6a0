// The event log's order. A row's id is given when it is inserted, but on PostgreSQL and MariaDB transactions
// commit in any order: a reader passing id 7 could later find a 6 committed behind it. So readers go by `seq`,
// given only to committed rows, by one sequencer at a time (the lock on event_sequencer's row; SQLite has one
// writer anyway), each run numbering what it finds in id order after the highest seq so far. A row that commits
// later gets a higher seq than any a reader has seen, so a replay never misses one.
import { sql } from 'kysely';
import { dialectSqlOf } from '../db/dialects/of.ts';
import type { StoreDatabase } from '../db/schema.ts';

/** Rows numbered by one statement; a run goes on while full batches come back. */
const BATCH = 1000;
const MAX_BATCHES_PER_RUN = 50;

// One writer (SQLite): one statement, the rows without a seq in id order numbered after the highest one there is; on its one
// connection nothing can commit between the statement's reading and its writing.
const numberOnSqlite = (batch: number) =>
  sql`update event_log set seq = s.base + s.rn from (select id, row_number() over (order by id) as rn, (select coalesce(max(seq), 0) from event_log) as base from event_log where seq is null order by id limit ${batch}) as s where event_log.id = s.id`;

/** Numbers up to one batch of committed rows; answers how many. */
async function numberBatch(database: StoreDatabase): Promise<number> {
  const { db } = database;
  if (dialectSqlOf(database).oneWriter) return Number((await numberOnSqlite(BATCH).execute(db)).numAffectedRows ?? 0);
  // Read committed: the reads, made once the lock is held, see every row committed until then. They are plain
  // reads, not part of the UPDATE: MariaDB would lock what an UPDATE's subquery reads and wait on rows not yet committed.
  return db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (trx) => {
      await trx.selectFrom('event_sequencer').select('id').where('id', '=', 1).forUpdate().execute();
      const ids = (await trx.selectFrom('event_log').select('id').where('seq', 'is', null).orderBy('id').limit(BATCH).execute()).map(
        (row) => Number(row.id),
      );
      if (ids.length === 0) return 0;
      const top = await trx
        .selectFrom('event_log')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .executeTakeFirst();
      const base = Number(top?.seq ?? 0);
      await trx
        .updateTable('event_log')
        // Numbers as literals (ours, never a caller's): PostgreSQL would type bare parameters of a CASE as text.
        .set({
          seq: sql`case id ${sql.join(
            ids.map((id, i) => sql`when ${sql.lit(id)} then ${sql.lit(base + i + 1)}`),
            sql` `,
          )} end`,
        })
        .where('id', 'in', ids)
        .execute();
      return ids.length;
    });
}

async function numberAll(database: StoreDatabase): Promise<void> {
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    // Most reads find nothing to number: one index lookup, no lock taken.
    const waiting = await database.db.selectFrom('event_log').select('id').where('seq', 'is', null).limit(1).execute();
    if (waiting.length === 0 || (await numberBatch(database)) < BATCH) return;
  }
}

export interface EventSequencer {
  /** Numbers every row committed before it was called (a run already going may have started earlier: one more follows it). */
  settle(): Promise<void>;
}

const sequencers = new WeakMap<StoreDatabase, EventSequencer>();

/** The one sequencer of a database in this process; concurrent readers share its runs. */
export function eventSequencerOf(database: StoreDatabase): EventSequencer {
  let found = sequencers.get(database);
  if (found !== undefined) return found;
  let current: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const settle = (): Promise<void> => {
    if (current === undefined) {
      current = numberAll(database).finally(() => (current = undefined));
      return current;
    }
    next ??= current
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return settle();
      });
    return next;
  };
  found = { settle };
  sequencers.set(database, found);
  return found;
}
