/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// total_count of a whole-table list stays exact whoever writes: concurrent creates, deletes, cascades, writes that
// roll back and a reset. PostgreSQL answers it from counters its triggers keep (0441_record_counts); the others count.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openDatabase } from '@app/database';
import { sql } from 'kysely';
import { resetStore } from '../src/sandbox/store-reset.ts';
import type { StoreDatabase } from '../src/db/schema.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

await describeOnEachDatabase('whole-table total_count', (s, target) => {
  let database: StoreDatabase;
  before(async () => {
    database = await openDatabase(s.databaseUrl);
  });
  after(async () => {
    await database?.close();
  });

  // count=1: the page is not the last, so the total is not told by the rows the page holds.
  const listed = async (resource: string) => {
    const reply = await s.call('GET', `/${resource}?count=1`, { headers: { 'cache-control': 'no-cache' } });
    assert.equal(reply.status, 200, reply.text);
    return Number(reply.json.total_count);
  };
  const counted = async (table: string) =>
    Number(
      (
        await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('concurrent creates and deletes, and a cascade, leave the exact count', async () => {
    const made = await Promise.all(
      Array.from({ length: 24 }, (_, i) => s.call('POST', '/products', { body: { item_name: `Counted ${i}` } })),
    );
    for (const reply of made) assert.equal(reply.status, 201, reply.text);
    await Promise.all(made.slice(0, 5).map((reply) => s.call('DELETE', `/products/${reply.json.id}`)));
    assert.equal(await listed('products'), await counted('products'));
    const order = await s.call('POST', '/orders', { body: {} });
    assert.equal(order.status, 201, order.text);
    for (let i = 0; i < 3; i += 1)
      assert.equal(
        (
          await s.call('POST', '/order_items', {
            body: { order_id: Number(order.json.id), product_id: Number(made[10]?.json.id), quantity: 1 },
          })
        ).status,
        201,
      );
    assert.equal(await listed('order_items'), await counted('order_items'));
    const itemsBefore = await listed('order_items');
    assert.equal((await s.call('DELETE', `/orders/${order.json.id}`)).status, 200);
    assert.equal(await listed('order_items'), itemsBefore - 3, 'the cascade counts too');
    assert.equal(await listed('orders'), await counted('orders'));
  });

  test(
    'a write that rolls back counts nothing, and counters folded together keep the sum',
    { skip: target.dialect !== 'postgres' && 'the counters are kept on PostgreSQL only' },
    async () => {
      const before = await listed('products');
      await database.db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('products').values({ item_name: 'Rolled back', created_at: 'x', updated_at: 'x' }).execute();
          throw new Error('roll back');
        })
        .catch(() => undefined);
      assert.equal(await listed('products'), before);
      // Many backends' counters (as a long-lived cluster leaves), summing to nothing: a reader folds them.
      await sql`insert into record_counts (table_name, slot, delta) select 'products', -g, case when g % 2 = 0 then 1 else -1 end from generate_series(1, 100) as g`.execute(
        database.db,
      );
      assert.equal(await listed('products'), before);
      const left = await sql<{ n: string }>`select count(*) as n from record_counts where table_name = 'products'`.execute(database.db);
      assert.ok(Number(left.rows[0]?.n) < 10, `folded: ${left.rows[0]?.n} counter rows left`);
      assert.equal(await listed('products'), before);
    },
  );

  test('after a reset the count starts again from what a fresh store holds', async () => {
    await resetStore(database);
    assert.equal(await listed('products'), await counted('products'));
    assert.equal((await s.call('POST', '/products', { body: { item_name: 'After reset' } })).status, 201);
    assert.equal((await s.call('POST', '/products', { body: { item_name: 'After reset 2' } })).status, 201);
    assert.equal(await listed('products'), await counted('products'));
    assert.equal(await listed('products'), 2);
  });
});
