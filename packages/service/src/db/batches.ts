// Batches: one set of params over many domains, one unfinished batch per user at a time.
import type { DialectName } from '@app/database';
import type { Kysely } from 'kysely';
import type { ServiceSchema } from './schema.ts';
import type { TestParams } from './test-params.ts';
import { newTestRow } from './tests.ts';
import { now } from './timestamps.ts';

export type CreateBatchOutcome = { created: number } | { running: { id: number; created_at: string } };

const INSERT_CHUNK = 500;

/**
 * Creates a batch and its tests in one transaction. The user's row is locked first, so two
 * concurrent calls cannot both pass the one-unfinished-batch rule.
 */
export async function createBatch(
  db: Kysely<ServiceSchema>,
  dialect: DialectName,
  username: string,
  tests: readonly TestParams[],
): Promise<CreateBatchOutcome> {
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

    const createdAt = now();
    let batchId: number;
    if (dialect === 'mysql') {
      const inserted = await trx.insertInto('dh_batch').values({ username, created_at: createdAt }).executeTakeFirstOrThrow();
      batchId = Number(inserted.insertId);
    } else {
      batchId = (await trx.insertInto('dh_batch').values({ username, created_at: createdAt }).returning('id').executeTakeFirstOrThrow()).id;
    }
    for (let start = 0; start < tests.length; start += INSERT_CHUNK) {
      await trx
        .insertInto('dh_test')
        .values(tests.slice(start, start + INSERT_CHUNK).map((params) => newTestRow(params, batchId, createdAt)))
        .execute();
    }
    return { created: batchId };
  });
}

export interface BatchStatus {
  nb_finished: number;
  finished_test_ids: string[];
  nb_running: number;
}

export async function batchStatus(db: Kysely<ServiceSchema>, batchId: number): Promise<BatchStatus | undefined> {
  const batch = await db.selectFrom('dh_batch').select('id').where('id', '=', batchId).executeTakeFirst();
  if (batch === undefined) return undefined;
  const finished = await db.selectFrom('dh_test').select('hash_id').where('batch_id', '=', batchId).where('progress', '=', 100).orderBy('id').execute();
  const { running } = await db
    .selectFrom('dh_test')
    .select((eb) => eb.fn.countAll<number>().as('running'))
    .where('batch_id', '=', batchId)
    .where('progress', '<', 100)
    .executeTakeFirstOrThrow();
  return { nb_finished: finished.length, finished_test_ids: finished.map((r) => r.hash_id), nb_running: Number(running) };
}
