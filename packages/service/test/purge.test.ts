// `dns-service purge`: old finished tests go with everything stored about them, in small
// transactions; running and recent tests stay, and --keep-last spares each domain's newest.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { parseAge, purgeTests } from '../src/db/purge.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { claimNextTest, finishTest } from '../src/db/queue.ts';
import { enqueueTest, newTestRow } from '../src/db/tests.ts';
import { migratedDatabase, params } from './agent/agent-fixture.ts';
import { settle } from './rpc-harness.ts';

const bin = new URL('../bin/dns-service.ts', import.meta.url).pathname;
const day = 86_400_000;
const daysAgo = (days: number): string => new Date(Date.now() - days * day).toISOString();

/** A test created `days` ago, finished (with its results, as rows before migration 0011 and as one value since, a query log and a chain) unless `progress` says otherwise. */
async function addTest(
  database: Database<ServiceSchema>,
  domain: string,
  days: number,
  progress = 100,
  batchId: number | null = null,
): Promise<number> {
  const db = database.db;
  const row = {
    ...newTestRow(params(domain), batchId, daysAgo(days)),
    progress,
    ...(progress === 100 && { overall_result: 'ok', ended_at: daysAgo(days) }),
  };
  await db.insertInto('dh_test').values(row).execute();
  const { id } = await db.selectFrom('dh_test').select('id').where('hash_id', '=', row.hash_id).executeTakeFirstOrThrow();
  if (progress === 100) {
    await db
      .insertInto('dh_result_entry')
      .values({ test_id: id, module: 'BASIC', testcase: 'BASIC01', tag: 'B01_CHILD_FOUND', level: 'INFO', args: '{}', timestamp: 0.1 })
      .execute();
    await db.insertInto('dh_test_result').values({ test_id: id, entries: 'x' }).execute();
    await db.insertInto('dh_test_queries').values({ test_id: id, log: 'x' }).execute();
    await db.insertInto('dh_test_chain').values({ test_id: id, analysis: '{}' }).execute();
  }
  return id;
}

async function count(
  database: Database<ServiceSchema>,
  table: 'dh_test' | 'dh_result_entry' | 'dh_test_result' | 'dh_test_queries' | 'dh_test_chain' | 'dh_batch',
): Promise<number> {
  return Number(
    (
      await database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

test('ages are hours, days or weeks', () => {
  assert.equal(parseAge('180d'), 180 * day);
  assert.equal(parseAge('12h'), 12 * 3600_000);
  assert.equal(parseAge('4w'), 28 * day);
  assert.equal(parseAge('180'), undefined);
  assert.equal(parseAge('-3d'), undefined);
});

for (const target of await testDatabaseTargets()) {
  describe(`purge on ${target.name}`, { skip: target.skip }, () => {
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

    test('removes old finished tests and what is stored with them, keeps running and recent ones, and --keep-last spares the newest', async () => {
      await database.db
        .insertInto('dh_batch')
        .values({ username: 'u', created_at: daysAgo(300) })
        .execute();
      const { id: batchId } = await database.db.selectFrom('dh_batch').select('id').executeTakeFirstOrThrow();
      const oldA = [];
      for (const days of [200, 210, 220, 230, 240]) oldA.push(await addTest(database, 'a.example', days));
      const running = await addTest(database, 'a.example', 250, 50);
      const recentA = [await addTest(database, 'a.example', 1), await addTest(database, 'a.example', 2)];
      const oldB = [
        await addTest(database, 'b.example', 300, 100, batchId),
        await addTest(database, 'b.example', 301, 100, batchId),
        await addTest(database, 'b.example', 302, 100, batchId),
      ];

      const chunks: number[] = [];
      const kept = await purgeTests(database.db, {
        before: new Date(Date.now() - 180 * day),
        keepLast: 3,
        chunk: 2,
        onProgress: (n) => chunks.push(n),
      });
      // a.example keeps its two recent tests and the newest old one; b.example keeps all three.
      assert.deepEqual(kept, { tests: 4, transactions: 2, batches: 0 });
      assert.deepEqual(chunks, [2, 4]);
      const left = async (): Promise<number[]> =>
        (await database.db.selectFrom('dh_test').select('id').orderBy('id').execute()).map((r) => r.id);
      assert.deepEqual(await left(), [oldA[0], running, ...recentA, ...oldB]);

      const all = await purgeTests(database.db, { before: new Date(Date.now() - 180 * day) });
      assert.deepEqual(all, { tests: 4, transactions: 1, batches: 1 });
      assert.deepEqual(await left(), [running, ...recentA]);
      // Only the two recent finished tests still have results, logs and chains.
      for (const table of ['dh_result_entry', 'dh_test_result', 'dh_test_queries', 'dh_test_chain'] as const)
        assert.equal(await count(database, table), 2, table);
      assert.equal(await count(database, 'dh_batch'), 0);
    });

    test('the queue keeps working while a purge runs: new tests are queued, claimed and finished between its transactions', async () => {
      for (let i = 0; i < 200; i++) await addTest(database, `old${i}.example`, 365);
      const purging = purgeTests(database.db, { before: new Date(Date.now() - 180 * day), chunk: 10 });
      const claimant = { agent: 'purge-test', leaseSeconds: 60 };
      for (let i = 0; i < 5; i++) {
        await enqueueTest(database.db, params(`live${i}.example`), 0);
        const claimed = await claimNextTest(database.db, database.dialect, 0, claimant);
        assert.ok(claimed !== undefined);
        assert.equal(await finishTest(database.db, claimed.hashId, []), true);
      }
      const outcome = await purging;
      assert.ok(outcome.tests >= 200 && outcome.transactions >= 20, JSON.stringify(outcome));
      const live = await database.db.selectFrom('dh_test').select(['hash_id', 'progress']).where('domain', 'like', 'live%').execute();
      assert.deepEqual(
        live.map((t) => t.progress),
        [100, 100, 100, 100, 100],
        'the tests made meanwhile are finished and kept',
      );
      assert.equal(
        Number(
          (
            await database.db
              .selectFrom('dh_test')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('domain', 'like', 'old%')
              .executeTakeFirstOrThrow()
          ).n,
        ),
        0,
      );
    });

    test(
      'dns-service purge runs from the command line',
      { skip: target.dialect !== 'sqlite' && 'the command line is the same on every database' },
      async () => {
        await addTest(database, 'c.example', 400);
        const child = spawn(process.execPath, [bin, 'purge', '--older-than', '180d', '--keep-last', '0'], {
          env: { ...process.env, DNS_SERVICE_DATABASE_URL: throwaway.url },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        const [code] = (await once(child, 'exit')) as [number];
        assert.equal(code, 0);
        assert.match(out, /^dns-service: purged 1 finished tests created before \d{4}-\d\d-\d\dT.* in 1 transactions/);
      },
    );
  });
}

test('dns-service purge without an age, or with a bad one, says what it needs and exits 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'purge-cli-'));
  try {
    for (const args of [['purge'], ['purge', '--older-than', 'soon'], ['purge', '--older-than', '10d', '--keep-last', 'some']]) {
      const child = spawn(process.execPath, [bin, ...args], {
        env: { ...process.env, DATA_DIR: dir },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number];
      assert.equal(code, 2, args.join(' '));
      assert.match(err, /needs --older-than AGE/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
