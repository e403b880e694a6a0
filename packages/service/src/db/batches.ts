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
    await trx.updateTable('dh_user').set((eb) => ({ username: eb.ref('username') })).where('username', '=', username).execute();
    const running = await trx
      .selectFrom('dh_batch')
      .select(['dh_batch.id', 'dh_batch.created_at'])
      .where('dh_batch.username', '=', username)
      .where((eb) => eb.exists(eb.selectFrom('dh_test').select('dh_test.id').whereRef('dh_test.batch_id', '=', 'dh_batch.id').where('dh_test.progress', '<', 100)))
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
      await trx.insertInto('dh_test').values(chunk.map((row) => ({ ...row, batch_id: batchId }))).execute();
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
        .where((eb) => eb.exists(eb.selectFrom('dh_test').select('dh_test.id').whereRef('dh_test.batch_id', '=', 'dh_batch.id').where('dh_test.progress', '<', 100)))
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
      const insert = db.insertInto('dh_test').values({ ...first, batch_id: batchId }).compile();
      for (const chunk of rows) for (const row of chunk) sqlite.execute({ sql: insert.sql, parameters: Object.values({ ...row, batch_id: batchId }) });
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

/** A batch's tests with their progress, in one read (a test finishing meanwhile is counted once); undefined for no such batch. */
export async function batchTests(db: Kysely<ServiceSchema>, batchId: number): Promise<{ hash_id: string; progress: number }[] | undefined> {
  const batch = await db.selectFrom('dh_batch').select('id').where('id', '=', batchId).executeTakeFirst();
  if (batch === undefined) return undefined;
  return db.selectFrom('dh_test').select(['hash_id', 'progress']).where('batch_id', '=', batchId).orderBy('id').execute();
}

/** get_batch_job_result's view: finished tests, and the rest counted as running (waiting ones too). */
export function finishedAndRunning(tests: readonly { hash_id: string; progress: number }[]): BatchStatus {
  const finished = tests.filter((t) => t.progress === 100);
  return { nb_finished: finished.length, finished_test_ids: finished.map((r) => r.hash_id), nb_running: tests.length - finished.length };
}

/** Marks a change to these batches' finished tests (inside the transaction that makes it). */
export async function raiseBatchRevisions(trx: Kysely<ServiceSchema>, batchIds: readonly number[]): Promise<void> {
  if (batchIds.length === 0) return;
  await trx.updateTable('dh_batch').set((eb) => ({ revision: eb('revision', '+', 1) })).where('id', 'in', batchIds).execute();
}

/** A batch's revision (see BatchTable.revision), undefined for no such batch: a primary-key read. */
export async function batchRevision(db: Kysely<ServiceSchema>, batchId: number): Promise<number | undefined> {
  const row = await db.selectFrom('dh_batch').select('revision').where('id', '=', batchId).executeTakeFirst();
  return row === undefined ? undefined : Number(row.revision);
}

/**
 * get_batch_job_result in one read, with the batch's revision read no later than the tests (so the
 * answer is at least as new as the revision it is kept under). On PostgreSQL one statement (one
 * snapshot) reads both, and the database joins the finished ids into one string, read in id order
 * from the covering index: a sorted subquery, as PostgreSQL 15 sorts the rows again for
 * `string_agg(... order by id)` (half of the statement's time at 10,000 tests); the driver then reads
 * one row instead of 10,000. Elsewhere the rows are read as batchTests does.
 */
export async function batchStatusAtRevision(db: Kysely<ServiceSchema>, dialect: DialectName, batchId: number): Promise<{ status: BatchStatus; revision: number } | undefined> {
  if (dialect !== 'postgres') {
    const revision = await batchRevision(db, batchId);
    if (revision === undefined) return undefined;
    const tests = await db.selectFrom('dh_test').select(['hash_id', 'progress']).where('batch_id', '=', batchId).orderBy('id').execute();
    return { status: finishedAndRunning(tests), revision };
  }
  const { rows } = await sql<{ revision: number | null; finished: string | null; total: string }>`
    select (select revision from dh_batch where id = ${batchId}) as revision, count(*) as total,
      (select string_agg(hash_id, ',') from (select hash_id from dh_test where batch_id = ${batchId} and progress = 100 order by id) as done) as finished
    from dh_test where batch_id = ${batchId}`.execute(db);
  const row = rows[0];
  if (row === undefined || row.revision === null) return undefined;
  const ids = row.finished === null ? [] : row.finished.split(',');
  return { status: { nb_finished: ids.length, finished_test_ids: ids, nb_running: Number(row.total) - ids.length }, revision: Number(row.revision) };
}

/** get_batch_job_result's answer, undefined for no such batch. */
export async function batchStatus(db: Kysely<ServiceSchema>, dialect: DialectName, batchId: number): Promise<BatchStatus | undefined> {
  return (await batchStatusAtRevision(db, dialect, batchId))?.status;
}
