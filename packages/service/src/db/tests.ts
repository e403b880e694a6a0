// Tests as the RPC methods see them: enqueue (with the reuse rule), look up, results, history.
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { ServiceSchema, TestTable } from './tables.ts';
import { fingerprint, isUndelegated, type TestParams } from './test-params.ts';
import { now, secondsAgo } from './timestamps.ts';

export type TestRow = Selectable<TestTable>;
export { resultEntries, type ResultEntryRow } from './result-entries.ts';

export function newTestId(): string {
  return randomBytes(8).toString('hex');
}

/** The row values of a new test; batch tests pass their batch id. */
export function newTestRow(params: TestParams, batchId: number | null, createdAt = now()) {
  return {
    hash_id: newTestId(),
    domain: params.domain,
    batch_id: batchId,
    created_at: createdAt,
    priority: params.priority,
    queue: params.queue,
    progress: 0,
    fingerprint: fingerprint(params),
    undelegated: isUndelegated(params),
    profile: params.profile,
    params: JSON.stringify(params),
  };
}

/**
 * Enqueues a test unless the same test (same fingerprint, not from a batch) is still waiting or
 * was started within `reuseSeconds`; then that test's id is returned instead.
 */
export async function enqueueTest(db: Kysely<ServiceSchema>, params: TestParams, reuseSeconds: number): Promise<string> {
  const row = newTestRow(params, null);
  if (reuseSeconds > 0) {
    const cutoff = secondsAgo(reuseSeconds);
    const previous = await db
      .selectFrom('dh_test')
      .select('hash_id')
      .where('fingerprint', '=', row.fingerprint)
      .where('batch_id', 'is', null)
      .where((eb) => eb.or([eb('progress', '=', 0), eb('started_at', '>=', cutoff)]))
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (previous !== undefined) return previous.hash_id;
  }
  await db.insertInto('dh_test').values(row).execute();
  return row.hash_id;
}

export async function findTest(db: Kysely<ServiceSchema>, hashId: string): Promise<TestRow | undefined> {
  return db.selectFrom('dh_test').selectAll().where('hash_id', '=', hashId).executeTakeFirst();
}

/**
 * A progress reader for the hottest call (clients poll it): the query is compiled once and only its
 * parameter changes, which saves most of the per-call cost of building it.
 */
export function progressReader(db: Kysely<ServiceSchema>): (hashId: string) => Promise<number | undefined> {
  const compiled = db.selectFrom('dh_test').select('progress').where('hash_id', '=', '').compile();
  return async (hashId) => (await db.executeQuery<{ progress: number }>({ ...compiled, parameters: [hashId] })).rows[0]?.progress;
}

/** A finished test's chain analysis (JSON text), if its run left one. */
export async function testChain(db: Kysely<ServiceSchema>, testRowId: number): Promise<string | undefined> {
  const row = await db.selectFrom('dh_test_chain').select('analysis').where('test_id', '=', testRowId).executeTakeFirst();
  return row?.analysis;
}

export type HistoryFilter = 'all' | 'delegated' | 'undelegated';

/** Finished tests of a domain, newest first. */
export async function testHistory(db: Kysely<ServiceSchema>, domain: string, filter: HistoryFilter, offset: number, limit: number) {
  let query = db
    .selectFrom('dh_test')
    .select(['hash_id', 'created_at', 'undelegated', 'overall_result'])
    .where('domain', '=', domain)
    .where('progress', '=', 100);
  if (filter !== 'all') query = query.where('undelegated', '=', filter === 'undelegated');
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
}
