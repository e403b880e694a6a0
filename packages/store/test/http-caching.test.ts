/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- replies are JSON checked by assertions */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openDatabase, type Database } from '@app/database';
import type { StoreSchema } from '../src/db/schema.ts';
import { startStoreUnderTest, type Reply } from './support/store-under-test.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

function assertCachingHeaders(reply: Reply, maxAge: number): void {
  assert.equal(reply.headers['cache-control'], `private, max-age=${maxAge}`);
  const date = Date.parse(String(reply.headers.date));
  const expires = Date.parse(String(reply.headers.expires));
  assert.ok(Math.abs(expires - date - maxAge * 1000) <= 2000, `Expires ${String(reply.headers.expires)} is about Date + ${maxAge} s`);
  const lastModified = Date.parse(String(reply.headers['last-modified']));
  assert.ok(Number.isFinite(lastModified) && lastModified <= Date.now(), 'Last-Modified is never in the future');
  assert.match(String(reply.headers.etag), /^"[\w-]+"$/);
}

const pastTheSecond = () => new Promise((resolve) => setTimeout(resolve, 1100));

await describeOnEachDatabase('HTTP caching', (s, target) => {
  let direct: Database<StoreSchema>;
  let productId: number;
  before(async () => {
    direct = await openDatabase<StoreSchema>(s.databaseUrl);
    productId = (await s.call('POST', '/products', { body: { item_name: 'Cached', price: 1 } })).json.id;
  });
  after(async () => {
    await direct?.close();
  });

  test('GET answers carry Cache-Control private with the resource max-age, Expires, Last-Modified and ETag', async () => {
    assertCachingHeaders(await s.call('GET', '/products'), 60);
    assertCachingHeaders(await s.call('GET', `/products/${productId}.json`), 60);
    assertCachingHeaders(await s.call('GET', '/categories'), 300);
    assertCachingHeaders(await s.call('GET', '/orders'), 30);
  });

  test('If-None-Match and If-Modified-Since give 304 with the caching headers repeated', async () => {
    const first = await s.call('GET', `/products/${productId}`);
    const etag = String(first.headers.etag);
    const again = await s.call('GET', `/products/${productId}`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.etag, etag);
    assertCachingHeaders(again, 60);
    assert.equal((await s.call('GET', `/products/${productId}`, { headers: { 'if-none-match': '"something-else"' } })).status, 200);

    await pastTheSecond();
    const dated = await s.call('GET', '/products?sort=-id');
    const since = await s.call('GET', '/products?sort=-id', { headers: { 'if-modified-since': String(dated.headers['last-modified']) } });
    assert.equal(since.status, 304);
    assertCachingHeaders(since, 60);
    const older = new Date(Date.parse(String(dated.headers['last-modified'])) - 60_000).toUTCString();
    assert.equal((await s.call('GET', '/products?sort=-id', { headers: { 'if-modified-since': older } })).status, 200);
  });

  test('a write drops cached reads: no stale read after an update, even with an old validator', async () => {
    const url = `/products/${productId}`;
    const before = await s.call('GET', url);
    const listBefore = await s.call('GET', '/products?fields=id,price');
    for (let price = 2; price < 8; price += 1) {
      assert.equal((await s.call('PUT', url, { body: { price } })).status, 200);
      const read = await s.call('GET', url, { headers: { 'if-none-match': String(before.headers.etag) } });
      assert.equal(read.status, 200);
      assert.equal(read.json.price, price);
      const list = await s.call('GET', '/products?fields=id,price', { headers: { 'if-none-match': String(listBefore.headers.etag) } });
      assert.equal(list.status, 200);
      assert.equal(list.json.products.find((p: { id: number }) => p.id === productId).price, price);
    }
    const made = await s.call('POST', '/products', { body: { item_name: 'New one' } });
    assert.ok((await s.call('GET', '/products?fields=id')).json.products.some((p: { id: number }) => p.id === made.json.id));
    await s.call('DELETE', `/products/${made.json.id}`);
    assert.equal((await s.call('GET', `/products/${made.json.id}`)).status, 404);
  });

  test('writes to a nested collection drop the parent lists that expand it', async () => {
    const order = await s.call('POST', '/orders', { body: {} });
    const empty = await s.call('GET', `/orders?id=${order.json.id}&expand=items`);
    assert.deepEqual(empty.json.orders[0].items, []);
    await s.call('POST', '/order_items', { body: { order_id: order.json.id, quantity: 3 } });
    const full = await s.call('GET', `/orders?id=${order.json.id}&expand=items`);
    assert.equal(full.json.orders[0].items.length, 1);
    assert.equal((await s.call('GET', `/orders/${order.json.id}/items`)).json.total_count, 1);
    await s.call('DELETE', `/orders/${order.json.id}`);
    assert.equal((await s.call('GET', `/order_items?order_id=${order.json.id}`)).json.total_count, 0, 'cascaded deletes are seen too');
  });

  test('Cache-Control: no-cache gets current data even when the change bypassed the API', async () => {
    const url = `/products/${productId}`;
    const cached = await s.call('GET', url);
    await direct.db.updateTable('products').set({ item_name: 'Changed behind the API' }).where('id', '=', productId).execute();
    assert.equal((await s.call('GET', url)).json.item_name, cached.json.item_name, 'served from the server-side cache');
    const current = await s.call('GET', url, { headers: { 'cache-control': 'no-cache' } });
    assert.equal(current.json.item_name, 'Changed behind the API');
    assert.equal((await s.call('GET', url)).json.item_name, 'Changed behind the API', 'and the cache now holds the current data');
  });

  test('HEAD reads like GET and is not taken for a write', async () => {
    const category = await s.call('POST', '/categories', { body: { name: 'Before' } });
    const url = `/categories/${category.json.id}`;
    assert.equal((await s.call('GET', url)).json.name, 'Before');
    await direct.db.updateTable('categories').set({ name: 'Behind the API' }).where('id', '=', category.json.id).execute();
    const head = await s.call('HEAD', url);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal((await s.call('GET', url)).json.name, 'Before', 'the cached read was not dropped by HEAD');
  });

  test('Last-Modified sent back as If-Modified-Since gets 304 also within the second the record changed; a later change that second is never hidden', async () => {
    // Whole seconds in the past, so no Last-Modified is after the real Date header; moved by hand within a second.
    let clock = Math.floor(Date.now() / 1000) * 1000 - 10_000 + 100;
    const clocked = await startStoreUnderTest(target, { clock: () => clock });
    try {
      const made = await clocked.call('POST', '/products', { body: { item_name: 'Dated', price: 1 } });
      const url = `/products/${made.json.id}`;
      clock += 100;
      const read = await clocked.call('GET', url);
      const lastModified = String(read.headers['last-modified']);
      assert.equal(Date.parse(lastModified), Math.floor(clock / 1000) * 1000);
      clock += 100;
      const again = await clocked.call('GET', url, { headers: { 'if-modified-since': lastModified } });
      assert.equal(again.status, 304, 'the date the client got validates its copy, in the same second');
      assert.equal(again.headers['last-modified'], lastModified);
      // Changed again within that second: the copy the client holds is older than the record, whatever the date says.
      clock += 100;
      assert.equal((await clocked.call('PUT', url, { body: { price: 2 } })).status, 200);
      clock += 100;
      const changed = await clocked.call('GET', url, { headers: { 'if-modified-since': lastModified } });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.json.price, 2);
      // From the next second on, the change's own date validates.
      clock += 1000;
      const next = await clocked.call('GET', url);
      assert.ok(Date.parse(String(next.headers['last-modified'])) > Date.parse(lastModified));
      assert.equal(
        (await clocked.call('GET', url, { headers: { 'if-modified-since': String(next.headers['last-modified']) } })).status,
        304,
      );
      assert.equal(
        (await clocked.call('GET', url, { headers: { 'if-modified-since': lastModified } })).status,
        200,
        'the older date no longer validates',
      );
      // A date later than the server's clock is none it gave.
      assert.equal(
        (await clocked.call('GET', url, { headers: { 'if-modified-since': new Date(clock + 3_600_000).toUTCString() } })).status,
        200,
      );
    } finally {
      await clocked.close();
    }
  });

  test('errors are never cached', async () => {
    const missing = await s.call('GET', '/products/99999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['cache-control'], 'no-store');
    assert.equal(missing.headers.etag, undefined);
    const bad = await s.call('GET', '/products?count=0');
    assert.equal(bad.headers['cache-control'], 'no-store');
    const created = await s.call('POST', '/products', { body: { item_name: 'Fresh' } });
    assert.equal(created.headers['cache-control'], 'no-store');
  });
});
