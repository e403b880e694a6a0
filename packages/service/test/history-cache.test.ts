// get_test_history's reused answers, on each database: reused while a domain's history stands still,
// read again as soon as one of its tests finishes or finished ones are purged, and not for another
// domain's changes; the revision's upsert holds when a domain's first tests finish at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { domainRevision } from '../src/db/domain-revisions.ts';
import { HistoryCache, historyAtRevision } from '../src/db/history-cache.ts';
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
      const cache = new HistoryCache(database.db, database.dialect);
      let reads = 0;
      const page = (domain: string, offset = 0, limit = 200) =>
        cache.answer(domain, { filter: 'all', offset, limit }, 'ids', (rows) => {
          reads++;
          return rows.map((row) => row.hash_id);
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

      // An answer over 1 MB (a very large limit) is made afresh each time, not kept.
      let big = 0;
      const huge = () =>
        cache.answer('a.history.test', { filter: 'all', offset: 0, limit: 1_000_000 }, 'huge', () => (big++, 'x'.repeat(1_100_000)));
      await huge();
      await huge();
      assert.equal(big, 2);
    });

    test('reads a page with its revision as testHistory reads the page, for each filter and paging', async () => {
      const ids = await enqueue('d.history.test', 4);
      const undelegated = await enqueueTest(
        database.db,
        { ...params('d.history.test'), nameservers: [{ ns: 'ns1.d.history.test', ip: '192.0.2.1' }] },
        0,
      );
      for (const id of [...ids, undelegated]) await finishTest(database.db, id, []);
      assert.equal(await domainRevision(database.db, 'd.history.test'), 5);
      for (const filter of ['all', 'delegated', 'undelegated'] as const) {
        for (const [offset, limit] of [
          [0, 200],
          [1, 2],
          [4, 10],
          [9, 10],
          [0, 0],
        ] as const) {
          const read = await historyAtRevision(database.db, database.dialect, 'd.history.test', { filter, offset, limit });
          assert.equal(read.revision, 5);
          assert.deepEqual(
            read.rows.map((row) => ({ ...row, undelegated: Boolean(row.undelegated) })),
            (await testHistory(database.db, 'd.history.test', filter, offset, limit)).map((row) => ({
              ...row,
              undelegated: Boolean(row.undelegated),
            })),
            `${filter} ${offset} ${limit}`,
          );
        }
      }
      assert.equal(
        (await historyAtRevision(database.db, database.dialect, 'd.history.test', { filter: 'undelegated', offset: 0, limit: 200 })).rows
          .length,
        1,
      );
      assert.deepEqual(
        await historyAtRevision(database.db, database.dialect, 'none.history.test', { filter: 'all', offset: 0, limit: 200 }),
        { revision: 0, rows: [] },
      );
    });

    test("a domain's first tests finishing at once each commit, each raising its revision", async () => {
      const ids = await enqueue('c.history.test', 6);
      assert.deepEqual(
        await Promise.all(ids.map((id) => finishTest(database.db, id, []))),
        ids.map(() => true),
      );
      assert.equal(await domainRevision(database.db, 'c.history.test'), 6);
    });
  });
}
