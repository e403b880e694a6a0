// get_batch_job_result's reused answers, on each database: reused while the batch stands still, read
// again as soon as one of its tests finishes or finished ones are purged, and gone with the batch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { BatchStatusCache } from '../src/db/batch-status-cache.ts';
import { batchRevision, batchStatus, createBatch } from '../src/db/batches.ts';
import { purgeTests } from '../src/db/purge.ts';
import { finishTest } from '../src/db/queue.ts';
import { JsonText, serializeResponse } from '../src/rpc/json-text.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { migratedDatabase, params } from './agent/agent-fixture.ts';

for (const target of await testDatabaseTargets()) {
  describe(`batch status cache on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<ServiceSchema>;
    before(async () => {
      ({ throwaway, database } = await migratedDatabase(target));
    });
    after(async () => {
      await database?.close();
      await throwaway?.drop();
    });

    const idsOf = async (batchId: number, domains: string[]) =>
      (await database.db.selectFrom('dh_test').select('hash_id').where('batch_id', '=', batchId).where('domain', 'in', domains).orderBy('id').execute()).map((r) => r.hash_id);
    const finish = async (batchId: number, domains: string[]) => {
      for (const hashId of await idsOf(batchId, domains)) assert.equal(await finishTest(database.db, hashId, []), true);
    };
    const purgeFinished = () => purgeTests(database.db, { before: new Date(Date.now() + 60_000) });

    test('answers as a fresh read does, reusing an answer only while the batch has not moved', async () => {
      const created = await createBatch(database.db, database.dialect, 'cache-user', ['a.cache.test', 'b.cache.test', 'c.cache.test', 'd.cache.test'].map((d) => params(d, 5)));
      assert.ok('created' in created);
      const batchId = created.created;
      const cache = new BatchStatusCache(database.db, database.dialect);

      const waiting = await cache.status(batchId);
      assert.deepEqual(waiting, { nb_finished: 0, finished_test_ids: [], nb_running: 4 });
      assert.equal(await cache.status(batchId), waiting, 'nothing moved: the same answer');

      const before = await batchRevision(database.db, batchId);
      await finish(batchId, ['c.cache.test', 'a.cache.test']);
      assert.equal(await batchRevision(database.db, batchId), before! + 2, 'each finished test raises the revision');
      const two = await cache.status(batchId);
      assert.deepEqual(two, { nb_finished: 2, finished_test_ids: await idsOf(batchId, ['a.cache.test', 'c.cache.test']), nb_running: 2 });
      assert.deepEqual(two, await batchStatus(database.db, database.dialect, batchId));
      assert.equal(await cache.status(batchId), two);
      // As JSON, spliced into a response as it is.
      const response = serializeResponse({ jsonrpc: '2.0', id: 'a "quoted" id', result: new JsonText((await cache.json(batchId))!) });
      assert.deepEqual(JSON.parse(response), { jsonrpc: '2.0', id: 'a "quoted" id', result: two });

      // A second finish of a finished test changes nothing, and leaves the revision alone.
      const [aId] = await idsOf(batchId, ['a.cache.test']);
      assert.equal(await finishTest(database.db, aId, []), false);
      assert.equal(await cache.status(batchId), two);

      // Purging the finished tests: the answer is read again, without them.
      assert.equal((await purgeFinished()).tests, 2);
      assert.deepEqual(await cache.status(batchId), { nb_finished: 0, finished_test_ids: [], nb_running: 2 });

      await finish(batchId, ['d.cache.test', 'b.cache.test']);
      assert.deepEqual(await cache.status(batchId), { nb_finished: 2, finished_test_ids: await idsOf(batchId, ['b.cache.test', 'd.cache.test']), nb_running: 0 });
      // The last purge leaves the batch empty, and it goes too: unknown, though its answer was kept.
      assert.deepEqual(await purgeFinished(), { tests: 2, transactions: 1, batches: 1 });
      assert.equal(await cache.status(batchId), undefined);
      assert.equal(await batchRevision(database.db, batchId), undefined);
      assert.equal(await cache.status(999_999), undefined);
    });
  });
}
