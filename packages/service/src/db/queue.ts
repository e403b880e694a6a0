// The agent's side of the queue: claim a waiting test atomically under a lease the agent renews,
// take up tests whose lease ran out, report progress, and finish a test with its results in one
// transaction.
import type { DialectName } from '@app/database';
import type { Finding, Level } from '@app/engine';
import { expressionBuilder, sql, type Kysely } from 'kysely';
import { raiseBatchRevisions } from './batches.ts';
import { raiseDomainRevisions } from './domain-revisions.ts';
import { packEntries } from './result-entries.ts';
import type { ServiceSchema } from './tables.ts';
import type { TestParams } from './test-params.ts';
import { now, secondsFromNow } from './timestamps.ts';

export interface ClaimedTest {
  /** The row id, for lease renewals. */
  id: number;
  hashId: string;
  batchId: number | null;
  params: TestParams;
  /** Runs started, this one included; above 1 when an earlier run was cut short. */
  attempts: number;
}

/** Who claims, and for how long a claim holds unless renewed. */
export interface Claimant {
  agent: string;
  leaseSeconds: number;
}

const CLAIM_ATTEMPTS = 5;

/** Takes the highest-priority, oldest waiting test of a queue; undefined when none waits. */
export async function claimNextTest(
  db: Kysely<ServiceSchema>,
  dialect: DialectName,
  queue: number,
  claimant: Claimant,
): Promise<ClaimedTest | undefined> {
  return claim(db, dialect, queue, claimant, 'waiting');
}

/**
 * Takes a running test of a queue whose claim expired (its agent died or lost the database) and
 * counts one more attempt; undefined when there is none. Its progress is left where it was.
 */
export async function claimOrphanedTest(
  db: Kysely<ServiceSchema>,
  dialect: DialectName,
  queue: number,
  claimant: Claimant,
): Promise<ClaimedTest | undefined> {
  return claim(db, dialect, queue, claimant, 'orphaned');
}

type Eligible = 'waiting' | 'orphaned';

async function claim(
  db: Kysely<ServiceSchema>,
  dialect: DialectName,
  queue: number,
  claimant: Claimant,
  which: Eligible,
): Promise<ClaimedTest | undefined> {
  const at = now();
  const leaseUntil = secondsFromNow(claimant.leaseSeconds);
  const eb = expressionBuilder<ServiceSchema, 'dh_test'>();
  const eligible =
    which === 'waiting'
      ? eb('progress', '=', 0)
      : eb.and([eb('progress', '>', 0), eb('progress', '<', 100), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', at)])]);
  const values =
    which === 'waiting'
      ? { progress: 1, started_at: at, agent: claimant.agent, lease_until: leaseUntil, attempts: 1 }
      : { agent: claimant.agent, lease_until: leaseUntil, attempts: sql<number>`attempts + 1` };
  const columns = ['id', 'hash_id', 'batch_id', 'params', 'attempts'] as const;
  const toClaimed = (row: { id: number; hash_id: string; batch_id: number | null; params: string; attempts: number }): ClaimedTest => ({
    id: row.id,
    hashId: row.hash_id,
    batchId: row.batch_id,
    params: JSON.parse(row.params) as TestParams,
    attempts: row.attempts,
  });

  if (dialect !== 'mysql') {
    // One statement: atomic on SQLite without holding a transaction open across awaits, and one
    // round trip on PostgreSQL, where concurrent agents skip rows another one is claiming.
    let candidate = db
      .selectFrom('dh_test')
      .select('id')
      .where('queue', '=', queue)
      .where(eligible)
      .orderBy('priority', 'desc')
      .orderBy('id', 'asc')
      .limit(1);
    if (dialect === 'postgres') candidate = candidate.forUpdate().skipLocked();
    const row = await db
      .updateTable('dh_test')
      .set(values)
      .where('id', '=', candidate)
      .where(eligible)
      .returning(columns)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    // A waiting test now runs: batch_status's answer moved. Raised just after the claim, so a cached
    // answer read in between is kept under the old revision and read again at the next poll.
    if (which === 'waiting' && row.batch_id !== null) await raiseBatchRevisions(db, [row.batch_id]);
    return toClaimed(row);
  }
  // MariaDB has no UPDATE … RETURNING: lock the row (skipping rows others hold), then take it.
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const claimed = await db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('dh_test')
        .select(columns)
        .where('queue', '=', queue)
        .where(eligible)
        .orderBy('priority', 'desc')
        .orderBy('id', 'asc')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (row === undefined) return null;
      const updated = await trx.updateTable('dh_test').set(values).where('id', '=', row.id).where(eligible).executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 1 && which === 'waiting' && row.batch_id !== null)
        await raiseBatchRevisions(trx, [row.batch_id]);
      return Number(updated.numUpdatedRows) === 1 ? { ...row, attempts: which === 'waiting' ? 1 : row.attempts + 1 } : undefined;
    });
    if (claimed === null) return undefined;
    if (claimed !== undefined) return toClaimed(claimed);
  }
  return undefined;
}

/** Extends the agent's claims on its running tests; returns how many it still holds. */
export async function renewLeases(db: Kysely<ServiceSchema>, claimant: Claimant, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('dh_test')
    .set({ lease_until: secondsFromNow(claimant.leaseSeconds) })
    .where('id', 'in', ids)
    .where('agent', '=', claimant.agent)
    .where('progress', '<', 100)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Gives unfinished tests back (an agent stopping before they could end): any agent takes them up
 * at once, and the cut-short run does not count against them.
 */
export async function releaseTests(db: Kysely<ServiceSchema>, agent: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('dh_test')
    .set({ agent: null, lease_until: now(), attempts: sql<number>`attempts - 1` })
    .where('id', 'in', ids)
    .where('agent', '=', agent)
    .where('progress', '<', 100)
    .execute();
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

/** Stores the results (and the chain analysis, when given) and sets progress to 100 in one transaction; false when already finished. */
export async function finishTest(db: Kysely<ServiceSchema>, hashId: string, entries: readonly Finding[], chain?: string): Promise<boolean> {
  const packed = await packEntries(entries);
  return db.transaction().execute(async (trx) => {
    // The guarded UPDATE comes first: it decides who finishes, and takes the write lock before any read.
    const finished = await trx
      .updateTable('dh_test')
      .set({ progress: 100, ended_at: now(), overall_result: overallResult(entries.map((e) => e.level)) })
      .where('hash_id', '=', hashId)
      .where('progress', '<', 100)
      .executeTakeFirst();
    if (Number(finished.numUpdatedRows) !== 1) return false;
    const { id, batch_id, domain } = await trx
      .selectFrom('dh_test')
      .select(['id', 'batch_id', 'domain'])
      .where('hash_id', '=', hashId)
      .executeTakeFirstOrThrow();
    await trx.insertInto('dh_test_result').values({ test_id: id, entries: packed }).execute();
    if (chain !== undefined) await trx.insertInto('dh_test_chain').values({ test_id: id, analysis: chain }).execute();
    // Last, so concurrent finishes of one batch or domain wait on its row only for the commit.
    if (batch_id !== null) await raiseBatchRevisions(trx, [batch_id]);
    await raiseDomainRevisions(trx, [domain]);
    return true;
  });
}
