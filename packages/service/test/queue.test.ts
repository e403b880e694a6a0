// The agent's side of the queue on each database: claim order, atomic claims, progress, finishing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { sql } from 'kysely';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import type { Finding } from '@app/engine';
import { claimNextTest, finishTest, overallResult, reportProgress } from '../src/db/queue.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { enqueueTest, findTest, resultEntries } from '../src/db/tests.ts';
import { createBatch } from '../src/db/batches.ts';
import { addUser } from '../src/db/users.ts';
import { migratedDatabase, params } from './agent/agent-fixture.ts';
import { settle } from './rpc-harness.ts';

// The agent that claims tests in these tests.
const claimant = { agent: 'test', leaseSeconds: 600 };

test('overall_result follows the most severe level', () => {
  assert.equal(overallResult([]), 'ok');
  assert.equal(overallResult(['INFO', 'NOTICE', 'DEBUG3']), 'ok');
  assert.equal(overallResult(['NOTICE', 'WARNING']), 'warning');
  assert.equal(overallResult(['WARNING', 'ERROR', 'INFO']), 'error');
  assert.equal(overallResult(['CRITICAL', 'INFO']), 'critical');
});

for (const target of await testDatabaseTargets()) {
  describe(`test queue on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<ServiceSchema>;
    before(async () => {
      ({ throwaway, database } = await migratedDatabase(target));
    });
    after(async () => {
      await database?.close();
      await settle();
      await throwaway?.drop();
    });

    test('claims the highest priority first, then the oldest, only from its queue', async () => {
      const { db, dialect } = database;
      const low = await enqueueTest(db, params('low.se', 5), 0);
      const highOld = await enqueueTest(db, params('high1.se', 10), 0);
      const highNew = await enqueueTest(db, params('high2.se', 10), 0);
      const otherQueue = await enqueueTest(db, params('q1.se', 99, 1), 0);
      const order = [];
      for (let claimed = await claimNextTest(db, dialect, 0, claimant); claimed; claimed = await claimNextTest(db, dialect, 0, claimant))
        order.push(claimed.hashId);
      assert.deepEqual(order, [highOld, highNew, low]);
      assert.equal((await claimNextTest(db, dialect, 1, claimant))?.hashId, otherQueue);
      assert.equal(await claimNextTest(db, dialect, 1, claimant), undefined);
      for (const id of [low, highOld, highNew, otherQueue]) assert.equal(await finishTest(db, id, []), true);
    });

    test('concurrent claimers never take the same test and leave none behind', async () => {
      const { db, dialect } = database;
      const ids = new Set<string>();
      for (let i = 0; i < 40; i++) ids.add(await enqueueTest(db, params(`c${i}.se`), 0));
      const claimer = async () => {
        const mine: string[] = [];
        for (let claimed = await claimNextTest(db, dialect, 0, claimant); claimed; claimed = await claimNextTest(db, dialect, 0, claimant))
          mine.push(claimed.hashId);
        return mine;
      };
      const all = (await Promise.all([claimer(), claimer(), claimer(), claimer()])).flat();
      assert.equal(all.length, 40);
      assert.deepEqual(new Set(all), ids);
      for (const id of all) await finishTest(db, id, []);
    });

    test('progress only rises, stays within 1–99, and finishing stores results once', async () => {
      const { db, dialect } = database;
      const id = await enqueueTest(db, params('progress.se'), 0);
      assert.equal((await claimNextTest(db, dialect, 0, claimant))?.hashId, id);
      await reportProgress(db, id, 40);
      await reportProgress(db, id, 20);
      assert.equal((await findTest(db, id))?.progress, 40);
      await reportProgress(db, id, 100);
      assert.equal((await findTest(db, id))?.progress, 99);
      const entries: Finding[] = [
        {
          module: 'BASIC',
          testcase: 'Basic01',
          tag: 'B01_PARENT_FOUND',
          level: 'INFO',
          args: { domain: 'se', n: 1, ok: true, none: null },
          timestamp: 0.25,
        },
        {
          module: 'NAMESERVER',
          testcase: 'Nameserver01',
          tag: 'IS_A_RECURSOR',
          level: 'ERROR',
          args: { ns: 'ns1.progress.se' },
          timestamp: 1.5,
        },
      ];
      assert.equal(await finishTest(db, id, entries), true);
      assert.equal(await finishTest(db, id, [entries[0]]), false);
      const row = await findTest(db, id);
      assert.equal(row?.progress, 100);
      assert.equal(row?.overall_result, 'error');
      assert.ok(row?.ended_at);
      const stored = await resultEntries(db, row.id);
      assert.deepEqual(
        stored.map((e) => ({ ...e, args: JSON.parse(e.args) as unknown })),
        entries,
      );
      await reportProgress(db, id, 50);
      assert.equal((await findTest(db, id))?.progress, 100);
    });

    test('a test finished before its results were kept in one value still reads its rows, in order', async () => {
      const { db } = database;
      const id = await enqueueTest(db, params('rows.se'), 0);
      const row = await findTest(db, id);
      assert.ok(row !== undefined);
      await db.updateTable('dh_test').set({ progress: 100, overall_result: 'warning' }).where('id', '=', row.id).execute();
      const old = [
        { module: 'BASIC', testcase: 'Basic01', tag: 'B01_CHILD_FOUND', level: 'INFO', args: '{"domain":"rows.se"}', timestamp: 0.5 },
        { module: 'DNSSEC', testcase: 'DNSSEC10', tag: 'DS10_HAS_NSEC', level: 'WARNING', args: '{}', timestamp: 0.75 },
      ];
      for (const entry of old)
        await db
          .insertInto('dh_result_entry')
          .values({ test_id: row.id, ...entry })
          .execute();
      assert.deepEqual(await resultEntries(db, row.id), old);
    });

    test('the reuse time: a waiting test is reused; none when the time is zero', async () => {
      const { db } = database;
      const first = await enqueueTest(db, params('reuse.se'), 600);
      assert.equal(await enqueueTest(db, params('reuse.se'), 600), first);
      assert.notEqual(await enqueueTest(db, params('reuse.se'), 0), first);
    });

    test('a finished test started longer ago than the reuse time is not reused', async () => {
      const { db, dialect } = database;
      while (await claimNextTest(db, dialect, 0, claimant)) {
        /* drain */
      }
      const old = await enqueueTest(db, params('old.se'), 600);
      assert.equal((await claimNextTest(db, dialect, 0, claimant))?.hashId, old);
      await db
        .updateTable('dh_test')
        .set({ started_at: new Date(Date.now() - 601_000).toISOString() })
        .where('hash_id', '=', old)
        .execute();
      await finishTest(db, old, []);
      const fresh = await enqueueTest(db, params('old.se'), 600);
      assert.notEqual(fresh, old);
      assert.equal((await claimNextTest(db, dialect, 0, claimant))?.hashId, fresh);
      const recent = await enqueueTest(db, params('recent.se'), 600);
      assert.equal((await claimNextTest(db, dialect, 0, claimant))?.hashId, recent);
      await finishTest(db, recent, []);
      assert.equal(await enqueueTest(db, params('recent.se'), 600), recent);
    });

    test('batches created at the same moment by one user: exactly one wins', async () => {
      const { db, dialect } = database;
      assert.equal(await addUser(db, 'racer', 'key'), true);
      const outcomes = await Promise.all([1, 2, 3, 4].map((n) => createBatch(db, dialect, 'racer', [params(`race${n}.se`, 5)])));
      assert.equal(outcomes.filter((o) => 'created' in o).length, 1, JSON.stringify(outcomes));
      assert.equal(outcomes.filter((o) => 'running' in o).length, 3);
    });

    test('the same race on the path the service takes (on SQLite, one synchronous stretch while a Kysely transaction may be open)', async () => {
      const { db, dialect, sqlite } = database;
      assert.equal(await addUser(db, 'racer2', 'key'), true);
      const outcomes = await Promise.all(
        [1, 2, 3, 4].map((n) => createBatch(db, dialect, 'racer2', [params(`race2-${n}.se`, 5), params(`race2-${n}b.se`, 5)], sqlite)),
      );
      assert.equal(outcomes.filter((o) => 'created' in o).length, 1, JSON.stringify(outcomes));
      assert.equal(outcomes.filter((o) => 'running' in o).length, 3);
      const created = outcomes.find((o) => 'created' in o) as { created: number };
      assert.equal((await db.selectFrom('dh_test').select('id').where('batch_id', '=', created.created).execute()).length, 2);
    });

    // Sorting the waiting tests made each claim cost as much as the queue was long: 63 ms with 93,000 waiting.
    test('a claim reads the first waiting test in index order, without sorting the queue', async () => {
      const { db, dialect } = database;
      for (let i = 0; i < 1000; i += 50)
        await Promise.all(Array.from({ length: 50 }, (_, j) => enqueueTest(db, params(`wait${i + j}.se`, (i + j) % 3), 0)));
      const claimQuery = 'select id from dh_test where queue = 0 and progress = 0 order by priority desc, id asc limit 1';
      let plan: string;
      if (dialect === 'postgres') {
        await sql`analyze dh_test`.execute(db);
        plan = JSON.stringify((await sql.raw(`explain (format json) ${claimQuery}`).execute(db)).rows);
        assert.doesNotMatch(plan, /"Node Type":\s*"(Sort|Incremental Sort)"/, plan);
      } else if (dialect === 'sqlite') {
        plan = JSON.stringify((await sql.raw(`explain query plan ${claimQuery}`).execute(db)).rows);
        assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
      } else {
        await sql`analyze table dh_test`.execute(db);
        plan = JSON.stringify((await sql.raw(`explain ${claimQuery}`).execute(db)).rows);
        assert.doesNotMatch(plan, /filesort/i, plan);
      }
      assert.match(plan, /dh_test_claim/, plan);
      for (let claimed = await claimNextTest(db, dialect, 0, claimant); claimed; claimed = await claimNextTest(db, dialect, 0, claimant))
        assert.equal(await finishTest(db, claimed.hashId, []), true);
    });
  });
}
