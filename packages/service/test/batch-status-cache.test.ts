// get_batch_job_result's and batch_status's reused answers, on each database: reused while the batch
// stands still, read again as soon as one of its tests starts or finishes or finished ones are
// purged, and gone with the batch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { BatchStatusCache } from '../src/db/batch-status-cache.ts';
import { batchProgressAtRevision, batchRevision, batchStatus, createBatch } from '../src/db/batches.ts';
import { purgeTests } from '../src/db/purge.ts';
import { claimNextTest, finishTest } from '../src/db/queue.ts';
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
      (
        await database.db
          .selectFrom('dh_test')
          .select('hash_id')
          .where('batch_id', '=', batchId)
          .where('domain', 'in', domains)
          .orderBy('id')
          .execute()
      ).map((r) => r.hash_id);
    const finish = async (batchId: number, domains: string[]) => {
      for (const hashId of await idsOf(batchId, domains)) assert.equal(await finishTest(database.db, hashId, []), true);
    };
    const purgeFinished = () => purgeTests(database.db, { before: new Date(Date.now() + 60_000) });

    test('answers as a fresh read does, reusing an answer only while the batch has not moved', async () => {
      const created = await createBatch(
        database.db,
        database.dialect,
        'cache-user',
        ['a.cache.test', 'b.cache.test', 'c.cache.test', 'd.cache.test'].map((d) => params(d, 5)),
      );
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
      assert.ok(Array.isArray(response), 'pieces, written as they are');
      assert.deepEqual(JSON.parse(Buffer.concat(response).toString()), { jsonrpc: '2.0', id: 'a "quoted" id', result: two });

      // A second finish of a finished test changes nothing, and leaves the revision alone.
      const [aId] = await idsOf(batchId, ['a.cache.test']);
      assert.equal(await finishTest(database.db, aId, []), false);
      assert.equal(await cache.status(batchId), two);

      // Purging the finished tests: the answer is read again, without them.
      assert.equal((await purgeFinished()).tests, 2);
      assert.deepEqual(await cache.status(batchId), { nb_finished: 0, finished_test_ids: [], nb_running: 2 });

      await finish(batchId, ['d.cache.test', 'b.cache.test']);
      assert.deepEqual(await cache.status(batchId), {
        nb_finished: 2,
        finished_test_ids: await idsOf(batchId, ['b.cache.test', 'd.cache.test']),
        nb_running: 0,
      });
      // The last purge leaves the batch empty, and it goes too: unknown, though its answer was kept.
      assert.deepEqual(await purgeFinished(), { tests: 2, transactions: 1, batches: 1 });
      assert.equal(await cache.status(batchId), undefined);
      assert.equal(await batchRevision(database.db, batchId), undefined);
      assert.equal(await cache.status(999_999), undefined);
    });

    test("batch_status's answer: the same cache, read again when a waiting test starts", async () => {
      // Its own queue, so the claims below take only this batch's tests.
      const domains = ['a.status.test', 'b.status.test', 'c.status.test'];
      const created = await createBatch(
        database.db,
        database.dialect,
        'status-user',
        domains.map((d) => params(d, 5, 7)),
      );
      assert.ok('created' in created);
      const batchId = created.created;
      const ids = await idsOf(batchId, domains);
      const cache = new BatchStatusCache(database.db, database.dialect);
      const all = { waiting: true, running: true, finished: true };

      assert.deepEqual(await cache.progress(batchId, {}), { waiting_count: 3, running_count: 0, finished_count: 0 });
      assert.deepEqual(await cache.progress(batchId, all), {
        waiting_count: 3,
        running_count: 0,
        finished_count: 0,
        waiting_tests: ids,
        running_tests: [],
        finished_tests: [],
      });
      const legacy = await cache.status(batchId);
      assert.deepEqual(legacy, { nb_finished: 0, finished_test_ids: [], nb_running: 3 });

      const before = await batchRevision(database.db, batchId);
      const claimed = await claimNextTest(database.db, database.dialect, 7, { agent: 'cache-test', leaseSeconds: 600 });
      assert.equal(claimed?.hashId, ids[0]);
      assert.equal(await batchRevision(database.db, batchId), before! + 1, 'a waiting test starting raises the revision');
      const oneRunning = {
        waiting_count: 2,
        running_count: 1,
        finished_count: 0,
        waiting_tests: ids.slice(1),
        running_tests: [ids[0]],
        finished_tests: [],
      };
      assert.deepEqual(await cache.progress(batchId, all), oneRunning);
      assert.deepEqual((await batchProgressAtRevision(database.db, database.dialect, batchId))?.progress, {
        waiting: ids.slice(1),
        running: [ids[0]],
        finished: [],
      });
      // The legacy view counts waiting and running alike.
      assert.deepEqual(await cache.status(batchId), legacy);

      // As JSON, one text per shape, each reused while the batch stands still.
      const finishedOnly = await cache.progressJson(batchId, { finished: true });
      assert.deepEqual(JSON.parse(finishedOnly!.toString()), { waiting_count: 2, running_count: 1, finished_count: 0, finished_tests: [] });
      assert.equal(await cache.progressJson(batchId, { finished: true }), finishedOnly);
      assert.deepEqual(JSON.parse((await cache.progressJson(batchId, all))!.toString()), oneRunning);

      await finish(batchId, ['a.status.test', 'c.status.test']);
      assert.deepEqual(await cache.progress(batchId, all), {
        waiting_count: 1,
        running_count: 0,
        finished_count: 2,
        waiting_tests: [ids[1]],
        running_tests: [],
        finished_tests: [ids[0], ids[2]],
      });
      assert.deepEqual(JSON.parse((await cache.progressJson(batchId, { finished: true }))!.toString()), {
        waiting_count: 1,
        running_count: 0,
        finished_count: 2,
        finished_tests: [ids[0], ids[2]],
      });
      assert.deepEqual(await cache.status(batchId), { nb_finished: 2, finished_test_ids: [ids[0], ids[2]], nb_running: 1 });
      assert.equal(await cache.progress(999_999, all), undefined);
      assert.equal(await cache.progressJson(999_999, all), undefined);
    });
  });
}
