// Writes issued together (on SQLite: committed in one transaction) each get their own outcome.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { migrateToLatest, openDatabase } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { MIGRATION_PRODUCT, storeMigrations } from '../src/db/migrations.ts';
import type { StoreDatabase, StoreSchema } from '../src/db/schema.ts';
import { ApiError } from '../src/model/api-error.ts';
import { recordsOf } from '../src/records/records.ts';
import { resourceNamed } from '../src/model/registry.ts';

for (const target of await testDatabaseTargets()) {
  describe(`writes issued together on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: StoreDatabase;
    before(async () => {
      throwaway = await target.create();
      database = await openDatabase<StoreSchema>(throwaway.url);
      await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
    });
    after(async () => {
      await database?.close();
      await throwaway?.drop();
    });

    const count = async () =>
      Number(
        (
          await database.db
            .selectFrom('products')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('all succeed and are stored', async () => {
      const products = recordsOf(database, resourceNamed('products'));
      const before = await count();
      const made = await Promise.all(Array.from({ length: 8 }, (_, i) => products.create({ item_name: `Bolt ${i}` })));
      assert.deepEqual(
        made.map((row) => row.item_name),
        Array.from({ length: 8 }, (_, i) => `Bolt ${i}`),
      );
      assert.equal(new Set(made.map((row) => row.id)).size, 8);
      assert.equal(await count(), before + 8);
    });

    test('one bad write fails alone; the others are stored', async () => {
      const products = recordsOf(database, resourceNamed('products'));
      const before = await count();
      const outcomes = await Promise.allSettled([
        products.create({ item_name: 'Good 1' }),
        products.create({ item_name: 'Ghost', manufacturer_id: 987654 }),
        products.create({ item_name: 'Good 2' }),
      ]);
      assert.equal(outcomes[0]?.status, 'fulfilled');
      assert.equal(outcomes[2]?.status, 'fulfilled');
      const refused = outcomes[1];
      assert.equal(refused?.status, 'rejected');
      assert.ok(refused.reason instanceof ApiError);
      assert.equal(refused.reason.statusCode, 409);
      assert.match(refused.reason.message, /manufacturer_id/);
      assert.equal(await count(), before + 2);
      const names = (
        await database.db.selectFrom('products').select('item_name').where('item_name', 'in', ['Good 1', 'Ghost', 'Good 2']).execute()
      ).map((r) => r.item_name);
      assert.deepEqual([...names].sort(), ['Good 1', 'Good 2']);
    });

    test('a write refused by the database itself fails alone too', async () => {
      const statuses = recordsOf(database, resourceNamed('product_statuses'));
      const products = recordsOf(database, resourceNamed('products'));
      const status = await statuses.create({ name: 'Active' });
      await products.create({ item_name: 'Uses status', product_status_id: status.id });
      const before = await count();
      // The delete breaks a foreign key, which only the database notices.
      const outcomes = await Promise.allSettled([
        products.create({ item_name: 'Plain 1' }),
        statuses.remove(status.id as number),
        products.create({ item_name: 'Plain 2' }),
      ]);
      assert.equal(outcomes[0]?.status, 'fulfilled');
      assert.equal(outcomes[1]?.status, 'rejected');
      assert.equal(outcomes[2]?.status, 'fulfilled');
      assert.ok((await statuses.get(status.id as number)) !== undefined);
      assert.equal(await count(), before + 2);
    });

    test('a write issued while another transaction is open neither joins it nor is lost with it', async () => {
      const products = recordsOf(database, resourceNamed('products'));
      const now = new Date().toISOString();
      let kept: Promise<unknown> | undefined;
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          await trx.insertInto('products').values({ item_name: 'Rolled back', created_at: now, updated_at: now }).execute();
          kept = products.create({ item_name: 'Kept' });
          // On SQLite both share one connection: the write must wait for this transaction to end.
          await new Promise((resolve) => setTimeout(resolve, 30));
          throw new Error('the caller gives up');
        }),
        /the caller gives up/,
      );
      await kept;
      const names = (
        await database.db.selectFrom('products').select('item_name').where('item_name', 'in', ['Rolled back', 'Kept']).execute()
      ).map((r) => r.item_name);
      assert.deepEqual(names, ['Kept']);
    });

    // A file lock another process holds: SQLite only.
    if (target.dialect === 'sqlite')
      test('while another process holds the write lock, a batch fails after one busy timeout, not one per write', async () => {
        const products = recordsOf(database, resourceNamed('products'));
        const other = new DatabaseSync(throwaway.url.slice('sqlite:'.length));
        other.exec('begin immediate');
        const started = Date.now();
        try {
          const outcomes = await Promise.allSettled([1, 2, 3].map((i) => products.create({ item_name: `Blocked ${i}` })));
          assert.deepEqual(
            outcomes.map((o) => o.status),
            ['rejected', 'rejected', 'rejected'],
          );
          assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /locked|busy/i);
          // The busy timeout is 5 s: three writes retried alone would wait 20 s in all.
          assert.ok(Date.now() - started < 9000, `took ${Date.now() - started} ms`);
        } finally {
          other.exec('rollback');
          other.close();
        }
        assert.equal((await products.create({ item_name: 'After the lock' })).item_name, 'After the lock');
      });
  });
}
