// The agent's side of the queue: claim a waiting test atomically, report progress, and finish it
// with its results in one transaction.
import type { DialectName } from '@app/database';
import type { Kysely } from 'kysely';
import type { ServiceSchema } from './schema.ts';
import type { TestParams } from './test-params.ts';
import { now } from './timestamps.ts';

export type Level = 'DEBUG3' | 'DEBUG2' | 'DEBUG' | 'INFO' | 'NOTICE' | 'WARNING' | 'ERROR' | 'CRITICAL';

export interface ResultEntry {
  module: string;
  testcase: string;
  tag: string;
  level: Level;
  args: Record<string, string | number | boolean | null>;
  timestamp: number;
}

export interface ClaimedTest {
  hashId: string;
  batchId: number | null;
  params: TestParams;
}

const CLAIM_ATTEMPTS = 5;

/** Takes the highest-priority, oldest waiting test of a queue; undefined when none waits. */
export async function claimNextTest(db: Kysely<ServiceSchema>, dialect: DialectName, queue: number): Promise<ClaimedTest | undefined> {
  const attempt = async (q: Kysely<ServiceSchema>) => {
    let candidate = q
      .selectFrom('dh_test')
      .select(['id', 'hash_id', 'batch_id', 'params'])
      .where('progress', '=', 0)
      .where('queue', '=', queue)
      .orderBy('priority', 'desc')
      .orderBy('id', 'asc')
      .limit(1);
    // Concurrent agents skip rows another one is claiming instead of queueing behind it.
    if (dialect !== 'sqlite') candidate = candidate.forUpdate().skipLocked();
    const row = await candidate.executeTakeFirst();
    if (row === undefined) return null;
    // The guard makes the claim atomic everywhere: only one claimer changes the row.
    const updated = await q.updateTable('dh_test').set({ progress: 1, started_at: now() }).where('id', '=', row.id).where('progress', '=', 0).executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1 ? row : undefined;
  };
  for (let tries = 0; tries < CLAIM_ATTEMPTS; tries++) {
    // SQLite needs no transaction (the guarded UPDATE decides), and a read-then-write one could fail on commit.
    const claimed = dialect === 'sqlite' ? await attempt(db) : await db.transaction().execute(attempt);
    if (claimed === null) return undefined;
    if (claimed !== undefined) return { hashId: claimed.hash_id, batchId: claimed.batch_id, params: JSON.parse(claimed.params) as TestParams };
  }
  return undefined;
}

/** Raises a running test's progress (1–99); progress never goes down, and never to 100 here. */
export async function reportProgress(db: Kysely<ServiceSchema>, hashId: string, percent: number): Promise<void> {
  const value = Math.min(99, Math.max(1, Math.floor(percent)));
  await db.updateTable('dh_test').set({ progress: value }).where('hash_id', '=', hashId).where('progress', '<', value).execute();
}

const rank: Record<Level, number> = { DEBUG3: 0, DEBUG2: 0, DEBUG: 0, INFO: 1, NOTICE: 2, WARNING: 3, ERROR: 4, CRITICAL: 5 };

/** The history's verdict: the most severe level, with INFO and NOTICE counting as ok. */
export function overallResult(levels: Iterable<Level>): 'ok' | 'warning' | 'error' | 'critical' {
  let worst = 0;
  for (const level of levels) worst = Math.max(worst, rank[level]);
  return worst >= 5 ? 'critical' : worst === 4 ? 'error' : worst === 3 ? 'warning' : 'ok';
}

const INSERT_CHUNK = 500;

/** Stores the results and sets progress to 100 in one transaction; false when already finished. */
export async function finishTest(db: Kysely<ServiceSchema>, hashId: string, entries: readonly ResultEntry[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    // The guarded UPDATE comes first: it decides who finishes, and takes the write lock before any read.
    const finished = await trx
      .updateTable('dh_test')
      .set({ progress: 100, ended_at: now(), overall_result: overallResult(entries.map((e) => e.level)) })
      .where('hash_id', '=', hashId)
      .where('progress', '<', 100)
      .executeTakeFirst();
    if (Number(finished.numUpdatedRows) !== 1) return false;
    const { id } = await trx.selectFrom('dh_test').select('id').where('hash_id', '=', hashId).executeTakeFirstOrThrow();
    for (let start = 0; start < entries.length; start += INSERT_CHUNK) {
      await trx
        .insertInto('dh_result_entry')
        .values(
          entries.slice(start, start + INSERT_CHUNK).map((e) => ({
            test_id: id,
            module: e.module,
            testcase: e.testcase,
            tag: e.tag,
            level: e.level,
            args: JSON.stringify(e.args),
            timestamp: e.timestamp,
          })),
        )
        .execute();
    }
    return true;
  });
}
