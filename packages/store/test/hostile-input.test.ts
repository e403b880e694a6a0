/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// Input an attacker would try, each once found to answer 500 or to store what the column cannot hold:
// inherited property names taken for declared ones, endless sort lists, numbers and dates past what
// the columns hold, a category made its own ancestor. Each must be a 4xx in the store's error format.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { serveStore } from '../src/server.ts';
import type { Reply } from './support/store-under-test.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

function assertError(reply: Reply, status: number, details?: RegExp): void {
  assert.equal(reply.status, status, reply.text);
  assert.deepEqual(Object.keys(reply.json).sort(), ['details', 'message', 'status_code']);
  assert.equal(reply.json.status_code, status);
  if (details !== undefined) assert.match(reply.json.details, details);
}

await describeOnEachDatabase('hostile input', (s) => {
  test('names found on Object.prototype are not fields, sorts, or nested collections: 400, or ignored as unknown filters', async () => {
    for (const query of [
      'sort=constructor',
      'sort=-toString',
      'sort=__proto__',
      'fields=__proto__',
      'fields=hasOwnProperty',
      'expand=valueOf',
      'expand=__proto__',
    ]) {
      assertError(await s.call('GET', `/products?${query}`), 400);
    }
    for (const query of ['constructor=eq:1', 'toString=1', '__proto__=x', 'valueOf=gt:3']) {
      const reply = await s.call('GET', `/products?${query}`);
      assert.equal(reply.status, 200, `${query}: ${reply.text}`);
    }
  });

  test('a sort list longer than the fields it could name is a 400', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => (i % 2 === 0 ? 'id' : '-cost')).join(',');
    assertError(await s.call('GET', `/products?sort=${many}`), 400, /sort/);
    assertError(await s.call('GET', '/products?sort=price,-price'), 400, /sort/);
    assert.equal((await s.call('GET', '/products?sort=-price,item_name')).status, 200);
  });

  test('integers beyond what the column holds are a 400, never stored or a 500 on reading back', async () => {
    for (const value of ['-9007199254740993', '9223372036854775807', '1e308', '2147483648', '-2147483649']) {
      assertError(
        await s.call('POST', '/products', {
          rawBody: `{"item_name":"n","quantity_on_hand":${value}}`,
          headers: { 'content-type': 'application/json' },
        }),
        400,
        /quantity_on_hand/,
      );
    }
    const edge = await s.call('POST', '/products', { body: { item_name: 'edge', quantity_on_hand: 2147483647, sort_order: -2147483648 } });
    assert.equal(edge.status, 201, edge.text);
    const back = await s.call('GET', `/products/${edge.json.id}`);
    assert.equal(back.json.quantity_on_hand, 2147483647);
    assert.equal(back.json.sort_order, -2147483648);
    assertError(await s.call('GET', '/products?quantity_on_hand=gt:9223372036854775807'), 400, /quantity_on_hand/);
    assertError(await s.call('GET', '/products/9999999999'), 404);
  });

  test('decimals beyond the column (14 digits, 4 after the point) are a 400', async () => {
    assertError(
      await s.call('POST', '/products', { rawBody: '{"item_name":"n","price":1e308}', headers: { 'content-type': 'application/json' } }),
      400,
      /price/,
    );
    assertError(await s.call('POST', '/products', { body: { item_name: 'n', price: 1e10 } }), 400, /price/);
    assertError(await s.call('POST', '/products', { body: { item_name: 'n', price: -1e10 } }), 400, /price/);
    const edge = await s.call('POST', '/products', { body: { item_name: 'edge', price: 9999999999.9999, weight: -9999999999.9999 } });
    assert.equal(edge.status, 201, edge.text);
    assert.equal((await s.call('GET', `/products/${edge.json.id}`)).json.price, 9999999999.9999);
  });

  test('a leap second, or a date-time past year 9999 in UTC, is a 400', async () => {
    assertError(await s.call('POST', '/orders', { body: { ordered_at: '2016-12-31T23:59:60Z' } }), 400, /ordered_at/);
    assertError(await s.call('POST', '/orders', { body: { ordered_at: '9999-12-31T23:59:59-05:00' } }), 400, /ordered_at/);
    assertError(await s.call('GET', '/orders?ordered_at=gt:2016-12-31T23:59:60Z'), 400, /ordered_at/);
    const fine = await s.call('POST', '/orders', { body: { ordered_at: '2016-12-31T23:59:59+01:00' } });
    assert.equal(fine.status, 201, fine.text);
    assert.equal(fine.json.ordered_at, '2016-12-31T22:59:59.000Z');
  });

  test('text with a NUL character is a 400, in a body or a filter', async () => {
    assertError(await s.call('POST', '/products', { body: { item_name: 'a\u0000b' } }), 400, /item_name/);
    assertError(await s.call('GET', '/products?item_name=eq:a%00b'), 400, /item_name/);
  });

  test('NUL anywhere in a request is a 400 on every route, and nothing is written', async () => {
    const before = (await s.call('GET', '/products')).json.total_count;
    // Once a 500 on PostgreSQL: the inventory lookup sent the value to the database as it came.
    assertError(await s.call('GET', '/inventory?gtin=not%3A%00'), 400, /gtin/);
    assertError(await s.call('GET', '/inventory?item_number=a%00'), 400, /item_number/);
    assertError(await s.call('POST', '/inventory/set', { body: { item_number: 'a\u0000', quantity: 1 } }), 400, /item_number/);
    assertError(await s.call('GET', '/products/1%00'), 400, /path/);
    assertError(
      await s.call('POST', '/products', { body: { item_name: 'n', custom_fields: [{ name: 'x', value: 'a\u0000' }] } }),
      400,
      /custom_fields\.0\.value/,
    );
    assertError(await s.call('POST', '/products', { body: { item_name: 'n', ['k\u0000']: 1 } }), 400, /NUL/);
    assert.deepEqual((await s.call('GET', '/products')).json.total_count, before);
  });

  test('a body nesting arrays and objects past 64 levels is a 400, with an Idempotency-Key too; 64 levels are kept', async () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const kept = await s.call('POST', '/subscriptions', {
      rawBody: `{"cart_info":${nested(63)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(kept.status, 201, kept.text);
    assert.equal(JSON.stringify((await s.call('GET', `/subscriptions/${kept.json.id}`)).json.cart_info), nested(63));
    assertError(
      await s.call('POST', '/subscriptions', { rawBody: `{"cart_info":${nested(64)}}`, headers: { 'content-type': 'application/json' } }),
      400,
      /64 levels/,
    );
    // Once a 500: the key's fingerprint serialised the parsed body again, past the stack's depth.
    const deep = `{"item_name":"deep","ignored":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Record<string, string>[]) {
      assertError(
        await s.call('POST', '/products', { rawBody: deep, headers: { 'content-type': 'application/json', ...headers } }),
        400,
        /64 levels/,
      );
    }
    assert.equal(
      (await s.call('POST', '/products', { rawBody: '{"item_name":"a [ { \\" ["}', headers: { 'content-type': 'application/json' } }))
        .status,
      201,
      'brackets inside text are not nesting',
    );
  });

  test('a path that is not valid percent-encoding, or a segment past any id, is a 4xx in the store error format, in the console too', async () => {
    assertError(await s.call('GET', '/products/%'), 400, /percent-encoding/);
    assertError(await s.call('PUT', '/products/%zz', { body: {} }), 400, /percent-encoding/);
    assertError(await s.call('GET', `${new URL(s.api).origin}/admin/apps/%/tokens`), 400, /percent-encoding/);
    assertError(await s.call('GET', `/products/${'1'.repeat(200)}`), 414, /longer/);
  });

  test("the docs page's asset route answers an unknown or inherited file name with the store's 404", async () => {
    const docs = await s.call('GET', '/docs', { anonymous: true });
    const assets = /src="([^"]*swagger-ui\/[^/"]+\/)swagger-ui-bundle\.js"/.exec(docs.text)?.[1];
    assert.ok(assets !== undefined, 'the docs page loads Swagger UI from a versioned path');
    const base = new URL(assets, `${s.api}/docs`).pathname.replace(/^\/api\/v1/, '');
    for (const file of ['nothing.js', 'constructor', 'toString', '__proto__'])
      assertError(await s.call('GET', `${base}${file}`, { anonymous: true }), 404);
    assert.equal((await s.call('GET', `${base}swagger-ui.css`, { anonymous: true })).status, 200);
  });

  test('a request line past 16 KiB is a 431 in the store error format', async () => {
    assertError(await s.call('GET', `/products?sort=${'x'.repeat(17_000)}`), 431, /16 KiB/);
    assert.equal((await s.call('GET', '/products')).status, 200, 'the store keeps serving');
  });

  test('a webhook subscription posted with an empty or null body is a 400 naming url', async () => {
    assertError(await s.call('POST', '/webhooks'), 400, /url: is required/);
    assertError(
      await s.call('POST', '/webhooks', { rawBody: 'null', headers: { 'content-type': 'application/json' } }),
      400,
      /url: is required/,
    );
  });

  test('a category cannot be its own parent or its own ancestor: 409', async () => {
    const top = (await s.call('POST', '/categories', { body: { name: 'Top' } })).json;
    const middle = (await s.call('POST', '/categories', { body: { name: 'Middle', parent_category_id: top.id } })).json;
    const low = (await s.call('POST', '/categories', { body: { name: 'Low', parent_category_id: middle.id } })).json;
    assertError(await s.call('PUT', `/categories/${top.id}`, { body: { parent_category_id: top.id } }), 409, /parent_category_id/);
    assertError(await s.call('PUT', `/categories/${top.id}`, { body: { parent_category_id: low.id } }), 409, /parent_category_id/);
    assert.equal((await s.call('GET', `/categories/${top.id}`)).json.parent_category_id, null);
    const moved = await s.call('PUT', `/categories/${low.id}`, { body: { parent_category_id: top.id } });
    assert.equal(moved.status, 200, moved.text);
  });

  test('two updates racing to close a loop between two categories: at most one succeeds', async () => {
    for (let round = 0; round < 5; round += 1) {
      const a = (await s.call('POST', '/categories', { body: { name: `A${round}` } })).json;
      const b = (await s.call('POST', '/categories', { body: { name: `B${round}` } })).json;
      const [ab, ba] = await Promise.all([
        s.call('PUT', `/categories/${a.id}`, { body: { parent_category_id: b.id } }),
        s.call('PUT', `/categories/${b.id}`, { body: { parent_category_id: a.id } }),
      ]);
      assert.deepEqual([ab.status, ba.status].sort(), [200, 409], `${ab.text} ${ba.text}`);
    }
  });
});

test('the SQLite store is made readable by its owner only, like auth.key', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'store-mode-'));
  try {
    const store = await serveStore({
      databaseUrl: `sqlite:${join(dataDir, 'db', 'store.sqlite')}`,
      dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
    });
    await store.close();
    for (const file of ['db/store.sqlite', 'auth.key']) assert.equal(statSync(join(dataDir, file)).mode & 0o777, 0o600, file);
    assert.equal(statSync(join(dataDir, 'db')).mode & 0o077, 0, 'nobody else may list the directory');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
