// get_test_history's reused answers, on each database: reused while a domain's history stands still,
// read again as soon as one of its tests finishes or finished ones are purged, and not for another
// domain's changes; the revision's upsert holds when a domain's first tests finish at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { domainRevision } from '../src/db/domain-revisions.ts';
import { HistoryCache } from '../src/db/history-cache.ts';
import { purgeTests } from '../src/db/purge.ts';
import { finishTest } from '../src/db/queue.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { enqueueTest, testHistory } from '../src/db/tests.ts';
import { migratedDatabase, params } from './agent/agent-fixture.ts';

for (const target of await testDatabaseTargets()) {
  describe(`history cache on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<ServiceSchema>;
    before(async () => {
      ({ throwaway, database } = await migratedDatabase(target));
    });
    after(async () => {
      await database?.close();
      await throwaway?.drop();
    });

    const enqueue = async (domain: string, count: number) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await enqueueTest(database.db, params(domain), 0));
      return ids;
    };

    test('reuses a page while its domain stands still, and reads it again when the domain moves', async () => {
      const [a1, a2, a3] = await enqueue('a.history.test', 3);
      const [b1] = await enqueue('b.history.test', 1);
      const cache = new HistoryCache(database.db);
      let reads = 0;
      const page = (domain: string, offset = 0, limit = 200) =>
        cache.answer(domain, `${offset} ${limit}`, async () => {
          reads++;
          return (await testHistory(database.db, domain, 'all', offset, limit)).map((row) => row.hash_id);
        });
      const ids = async (answer: Promise<Buffer>) => JSON.parse((await answer).toString()) as string[];

      const empty = await page('a.history.test');
      assert.deepEqual(JSON.parse(empty.toString()), []);
      assert.equal(await page('a.history.test'), empty, 'nothing moved: the same bytes');
      assert.equal(reads, 1);

      assert.equal(await finishTest(database.db, a2, []), true);
      assert.equal(await domainRevision(database.db, 'a.history.test'), 1);
      assert.deepEqual(await ids(page('a.history.test')), [a2]);
      assert.equal(reads, 2);

      // Another domain's test finishing leaves this domain's answers alone.
      const one = await page('a.history.test');
      assert.equal(await finishTest(database.db, b1, []), true);
      assert.equal(await page('a.history.test'), one);
      assert.equal(reads, 2);
      assert.deepEqual(await ids(page('b.history.test')), [b1]);

      // Each page is kept apart; all of them go when the domain moves.
      await finishTest(database.db, a1, []);
      await finishTest(database.db, a3, []);
      assert.equal(await domainRevision(database.db, 'a.history.test'), 3);
      assert.equal((await ids(page('a.history.test'))).length, 3);
      assert.deepEqual(await ids(page('a.history.test', 1, 1)), (await ids(page('a.history.test'))).slice(1, 2));
      const kept = reads;
      await page('a.history.test', 1, 1);
      assert.equal(reads, kept);

      // Purging the finished tests raises each purged domain's revision: the answers are read again.
      assert.equal((await purgeTests(database.db, { before: new Date(Date.now() + 60_000) })).tests, 4);
      assert.deepEqual(await ids(page('a.history.test')), []);
      assert.deepEqual(await ids(page('b.history.test')), []);
      assert.equal(await domainRevision(database.db, 'a.history.test'), 4);
      assert.equal(await domainRevision(database.db, 'never.history.test'), 0);
      assert.ok(cache.size > 0);
    });

    test("a domain's first tests finishing at once each commit, each raising its revision", async () => {
      const ids = await enqueue('c.history.test', 6);
      assert.deepEqual(await Promise.all(ids.map((id) => finishTest(database.db, id, []))), ids.map(() => true));
      assert.equal(await domainRevision(database.db, 'c.history.test'), 6);
    });
  });
}
