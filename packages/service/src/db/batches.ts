// Batches: one set of params over many domains, one unfinished batch per user at a time.
import { setImmediate as turn, setTimeout as delay } from 'node:timers/promises';
import type { DialectName, SyncSqlite } from '@app/database';
import { sql, type Kysely } from 'kysely';
import type { ServiceSchema } from './tables.ts';
import type { TestParams } from './test-params.ts';
import { newTestRow } from './tests.ts';
import { now } from './timestamps.ts';

export type CreateBatchOutcome = { created: number } | { running: { id: number; created_at: string } };

/** Rows made, and rows inserted, between two turns of the event loop, so other callers get their answers. */
const CHUNK = 500;

/**
 * Creates a batch and its tests. The rows are made first, a chunk per turn of the event loop; then
 * one transaction inserts them, yielding between chunks (on PostgreSQL and MariaDB other callers use
 * other connections meanwhile). The user's row is locked first, so two concurrent calls cannot both
 * pass the one-unfinished-batch rule.
 */
export async function createBatch(
  db: Kysely<ServiceSchema>,
  dialect: DialectName,
  username: string,
  tests: readonly TestParams[],
  sqlite?: SyncSqlite,
): Promise<CreateBatchOutcome> {
  const createdAt = now();
  const rows: ReturnType<typeof newTestRow>[][] = [];
  for (let start = 0; start < tests.length; start += CHUNK) {
    if (start > 0) await turn();
    rows.push(tests.slice(start, start + CHUNK).map((params) => newTestRow(params, null, createdAt)));
  }
  if (dialect === 'sqlite' && sqlite !== undefined) return createOnSqlite(db, sqlite, username, rows, createdAt);
  return db.transaction().execute(async (trx) => {
    // A write first: it locks the user's row on PostgreSQL and MariaDB, and takes SQLite's write
    // lock before any read, so a concurrent writer makes us wait instead of failing the commit.
    await trx
      .updateTable('dh_user')
      .set((eb) => ({ username: eb.ref('username') }))
      .where('username', '=', username)
      .execute();
    const running = await trx
      .selectFrom('dh_batch')
      .select(['dh_batch.id', 'dh_batch.created_at'])
      .where('dh_batch.username', '=', username)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('dh_test')
            .select('dh_test.id')
            .whereRef('dh_test.batch_id', '=', 'dh_batch.id')
            .where('dh_test.progress', '<', 100),
        ),
      )
      .orderBy('dh_batch.id', 'desc')
      .executeTakeFirst();
    if (running !== undefined) return { running };

    let batchId: number;
    if (dialect === 'mysql') {
      const inserted = await trx.insertInto('dh_batch').values({ username, created_at: createdAt }).executeTakeFirstOrThrow();
      batchId = Number(inserted.insertId);
    } else {
      batchId = (await trx.insertInto('dh_batch').values({ username, created_at: createdAt }).returning('id').executeTakeFirstOrThrow()).id;
    }
    for (const [index, chunk] of rows.entries()) {
      if (index > 0 && dialect !== 'sqlite') await turn();
      await trx
        .insertInto('dh_test')
        .values(chunk.map((row) => ({ ...row, batch_id: batchId })))
        .execute();
    }
    return { created: batchId };
  });
}

type TestRowValues = ReturnType<typeof newTestRow>;

/**
 * SQLite has one connection, which a Kysely transaction would hold across every await, so every
 * other caller would wait for the whole batch. Instead the statements run back to back in one
 * short synchronous stretch (each prepared once), once no other transaction is open.
 */
async function createOnSqlite(
  db: Kysely<ServiceSchema>,
  sqlite: SyncSqlite,
  username: string,
  rows: readonly TestRowValues[][],
  createdAt: string,
): Promise<CreateBatchOutcome> {
  while (sqlite.inTransaction) await delay(2);
  const run = (query: { compile(): { sql: string; parameters: readonly unknown[] } }) => sqlite.execute(query.compile());
  const control = (statement: 'BEGIN IMMEDIATE' | 'COMMIT' | 'ROLLBACK') => sqlite.execute({ sql: statement, parameters: [] });
  control('BEGIN IMMEDIATE');
  try {
    const running = run(
      db
        .selectFrom('dh_batch')
        .select(['dh_batch.id', 'dh_batch.created_at'])
        .where('dh_batch.username', '=', username)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('dh_test')
              .select('dh_test.id')
              .whereRef('dh_test.batch_id', '=', 'dh_batch.id')
              .where('dh_test.progress', '<', 100),
          ),
        )
        .orderBy('dh_batch.id', 'desc')
        .limit(1),
    ).rows[0] as { id: number; created_at: string } | undefined;
    if (running !== undefined) {
      control('ROLLBACK');
      return { running };
    }
    const batchId = Number(run(db.insertInto('dh_batch').values({ username, created_at: createdAt })).insertId);
    const first = rows[0]?.[0];
    if (first !== undefined) {
      // One single-row statement, prepared once; each row gives its values in the same key order.
      const insert = db
        .insertInto('dh_test')
        .values({ ...first, batch_id: batchId })
        .compile();
      for (const chunk of rows)
        for (const row of chunk) sqlite.execute({ sql: insert.sql, parameters: Object.values({ ...row, batch_id: batchId }) });
    }
    control('COMMIT');
    return { created: batchId };
  } catch (error) {
    if (sqlite.inTransaction) control('ROLLBACK');
    throw error;
  }
}

export interface BatchStatus {
  nb_finished: number;
  finished_test_ids: string[];
  nb_running: number;
}

/** A batch's test ids by state, each in id order: batch_status's lists, and get_batch_job_result's answer (see legacyStatus). */
export interface BatchProgress {
  waiting: string[];
  running: string[];
  finished: string[];
}

/** A batch's tests sorted by state (progress 0, 1–99, 100), keeping their order. */
export function progressOf(tests: readonly { hash_id: string; progress: number }[]): BatchProgress {
  const progress: BatchProgress = { waiting: [], running: [], finished: [] };
  for (const t of tests) (t.progress === 0 ? progress.waiting : t.progress === 100 ? progress.finished : progress.running).push(t.hash_id);
  return progress;
}

/** get_batch_job_result's view: finished tests, and the rest counted as running (waiting ones too). */
export function legacyStatus(progress: BatchProgress): BatchStatus {
  return {
    nb_finished: progress.finished.length,
    finished_test_ids: progress.finished,
    nb_running: progress.waiting.length + progress.running.length,
  };
}

/** Marks a change to these batches' finished tests (inside the transaction that makes it). */
export async function raiseBatchRevisions(trx: Kysely<ServiceSchema>, batchIds: readonly number[]): Promise<void> {
  if (batchIds.length === 0) return;
  await trx
    .updateTable('dh_batch')
    .set((eb) => ({ revision: eb('revision', '+', 1) }))
    .where('id', 'in', batchIds)
    .execute();
}

/** A batch's revision (see BatchTable.revision), undefined for no such batch: a primary-key read. */
export async function batchRevision(db: Kysely<ServiceSchema>, batchId: number): Promise<number | undefined> {
  const row = await db.selectFrom('dh_batch').select('revision').where('id', '=', batchId).executeTakeFirst();
  return row === undefined ? undefined : Number(row.revision);
}

/**
 * A batch's tests by state in one read, with the batch's revision read no later than the tests (so the
 * answer is at least as new as the revision it is kept under). On PostgreSQL one statement (one
 * snapshot) reads both, and the database joins each state's ids into one string, read in id order
 * from the covering index: a sorted subquery, as PostgreSQL 15 sorts the rows again for
 * `string_agg(... order by id)` (half of the statement's time at 10,000 tests); the driver then reads
 * one row instead of 10,000. Elsewhere the batch's rows are read in id order.
 */
export async function batchProgressAtRevision(
  db: Kysely<ServiceSchema>,
  dialect: DialectName,
  batchId: number,
): Promise<{ progress: BatchProgress; revision: number } | undefined> {
  if (dialect !== 'postgres') {
    const revision = await batchRevision(db, batchId);
    if (revision === undefined) return undefined;
    const tests = await db.selectFrom('dh_test').select(['hash_id', 'progress']).where('batch_id', '=', batchId).orderBy('id').execute();
    return { progress: progressOf(tests), revision };
  }
  const { rows } = await sql<{ revision: number | null; waiting: string | null; running: string | null; finished: string | null }>`
    select (select revision from dh_batch where id = ${batchId}) as revision,
      string_agg(hash_id, ',') filter (where progress = 0) as waiting,
      string_agg(hash_id, ',') filter (where progress > 0 and progress < 100) as running,
      string_agg(hash_id, ',') filter (where progress = 100) as finished
    from (select hash_id, progress from dh_test where batch_id = ${batchId} order by id) as tests`.execute(db);
  const row = rows[0];
  if (row === undefined || row.revision === null) return undefined;
  const ids = (joined: string | null): string[] => (joined === null ? [] : joined.split(','));
  return {
    progress: { waiting: ids(row.waiting), running: ids(row.running), finished: ids(row.finished) },
    revision: Number(row.revision),
  };
}

/** get_batch_job_result's answer, undefined for no such batch. */
export async function batchStatus(db: Kysely<ServiceSchema>, dialect: DialectName, batchId: number): Promise<BatchStatus | undefined> {
  const read = await batchProgressAtRevision(db, dialect, batchId);
  return read === undefined ? undefined : legacyStatus(read.progress);
}
