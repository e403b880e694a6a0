// Watches as stored: add, list, remove, and the two compare-and-set steps that let several service
// instances share them: a due run is enqueued by whoever moves next_run_at first, and a finished run
// is compared (and alerted on) by whoever clears pending_test first.
import type { DialectName, SyncSqlite } from '@app/database';
import { setTimeout as delay } from 'node:timers/promises';
import type { Kysely, Selectable } from 'kysely';
import { nextRun, parseSchedule } from '../schedules/schedule.ts';
import type { ServiceSchema, WatchTable } from './tables.ts';
import type { TestParams } from './test-params.ts';
import { newTestRow } from './tests.ts';
import { now } from './timestamps.ts';

export type WatchRow = Selectable<WatchTable>;

export interface NewWatch {
  username: string | null;
  params: TestParams;
  schedule: string;
  language: string;
  webhookUrl?: string;
  webhookSecret?: string;
  email?: string;
  firstRunAt: string;
}

export async function addWatch(db: Kysely<ServiceSchema>, dialect: DialectName, watch: NewWatch): Promise<number> {
  const values = {
    username: watch.username,
    domain: watch.params.domain,
    params: JSON.stringify(watch.params),
    schedule: watch.schedule,
    language: watch.language,
    webhook_url: watch.webhookUrl ?? null,
    webhook_secret: watch.webhookSecret ?? null,
    email: watch.email ?? null,
    created_at: now(),
    next_run_at: watch.firstRunAt,
  };
  // MariaDB has no INSERT … RETURNING; its insertId is the new row's.
  if (dialect === 'mysql') return Number((await db.insertInto('dh_watch').values(values).executeTakeFirstOrThrow()).insertId);
  return (await db.insertInto('dh_watch').values(values).returning('id').executeTakeFirstOrThrow()).id;
}

/** Watches, oldest first; of one user when `username` is given, of one domain when `domain` is. */
export async function listWatches(db: Kysely<ServiceSchema>, filter: { username?: string; domain?: string } = {}): Promise<WatchRow[]> {
  let query = db.selectFrom('dh_watch').selectAll();
  if (filter.username !== undefined) query = query.where('username', '=', filter.username);
  if (filter.domain !== undefined) query = query.where('domain', '=', filter.domain);
  return query.orderBy('id').execute();
}

/** Removes a watch (only the user's own when `username` is given); false when there was none. */
export async function removeWatch(db: Kysely<ServiceSchema>, id: number, username?: string): Promise<boolean> {
  let query = db.deleteFrom('dh_watch').where('id', '=', id);
  if (username !== undefined) query = query.where('username', '=', username);
  return Number((await query.executeTakeFirst()).numDeletedRows) === 1;
}

/** Watches whose run is due and whose previous run is compared; the claim decides who runs them. */
export async function dueWatches(db: Kysely<ServiceSchema>, at: Date, limit = 100): Promise<WatchRow[]> {
  return db
    .selectFrom('dh_watch')
    .selectAll()
    .where('next_run_at', '<=', at.toISOString())
    .where('pending_test', 'is', null)
    .orderBy('next_run_at')
    .limit(limit)
    .execute();
}

/**
 * Moves a due watch's next_run_at on and enqueues its run as a normal test, in one transaction that
 * only commits if next_run_at still held what `watch` read: of several instances racing, exactly one
 * gets the test id; the others get undefined. On SQLite (given `sqlite`), the two statements run in
 * one synchronous stretch, as batches are stored, so no transaction is held across an await.
 */
export async function claimDueRun(
  db: Kysely<ServiceSchema>,
  watch: WatchRow,
  at: Date,
  priority: number,
  sqlite?: SyncSqlite,
): Promise<string | undefined> {
  const schedule = parseSchedule(watch.schedule);
  if (schedule === undefined) return undefined;
  // A watch that was not run for a while (no agent) runs once now, not once per missed slot.
  let next = nextRun(schedule, new Date(Math.max(at.getTime(), Date.parse(watch.next_run_at))));
  if (next.getTime() <= at.getTime()) next = nextRun(schedule, at);
  const params: TestParams = { ...(JSON.parse(watch.params) as TestParams), priority };
  const row = newTestRow(params, null);
  const move = (on: Kysely<ServiceSchema>) =>
    on
      .updateTable('dh_watch')
      .set({ next_run_at: next.toISOString(), pending_test: row.hash_id })
      .where('id', '=', watch.id)
      .where('next_run_at', '=', watch.next_run_at)
      .where('pending_test', 'is', null);
  if (sqlite !== undefined) {
    while (sqlite.inTransaction) await delay(2);
    const run = (statement: { sql: string; parameters: readonly unknown[] }) => sqlite.execute(statement);
    run({ sql: 'BEGIN IMMEDIATE', parameters: [] });
    try {
      if (Number(run(move(db).compile()).numAffectedRows) !== 1) {
        run({ sql: 'ROLLBACK', parameters: [] });
        return undefined;
      }
      run(db.insertInto('dh_test').values(row).compile());
      run({ sql: 'COMMIT', parameters: [] });
      return row.hash_id;
    } catch (error) {
      if (sqlite.inTransaction) run({ sql: 'ROLLBACK', parameters: [] });
      throw error;
    }
  }
  return db.transaction().execute(async (trx) => {
    if (Number((await move(trx).executeTakeFirst()).numUpdatedRows) !== 1) return undefined;
    await trx.insertInto('dh_test').values(row).execute();
    return row.hash_id;
  });
}

export interface FinishedRun {
  watch: WatchRow;
  /** The run just finished. */
  testId: string;
  /** The watch's run before it; none for its first run. */
  previousTestId: string | null;
}

/** Watches whose pending run has finished. */
export async function watchesWithFinishedRun(db: Kysely<ServiceSchema>, limit = 100): Promise<WatchRow[]> {
  return db
    .selectFrom('dh_watch')
    .innerJoin('dh_test', 'dh_test.hash_id', 'dh_watch.pending_test')
    .selectAll('dh_watch')
    .where('dh_test.progress', '=', 100)
    .orderBy('dh_watch.id')
    .limit(limit)
    .execute();
}

/** Makes the finished pending run the watch's last one; undefined when another instance did it first. */
export async function claimFinishedRun(db: Kysely<ServiceSchema>, watch: WatchRow): Promise<FinishedRun | undefined> {
  if (watch.pending_test === null) return undefined;
  const moved = await db
    .updateTable('dh_watch')
    .set({ last_test: watch.pending_test, pending_test: null })
    .where('id', '=', watch.id)
    .where('pending_test', '=', watch.pending_test)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) return undefined;
  return { watch, testId: watch.pending_test, previousTestId: watch.last_test };
}

/** A pending run whose test row is gone (removed by hand) would hold its watch forever: let it go. */
export async function releaseLostRuns(db: Kysely<ServiceSchema>): Promise<void> {
  await db
    .updateTable('dh_watch')
    .set({ pending_test: null })
    .where('pending_test', 'is not', null)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('dh_test').select('dh_test.id').whereRef('dh_test.hash_id', '=', 'dh_watch.pending_test'))),
    )
    .execute();
}
