/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { before, test } from 'node:test';
import type { Reply } from './support/store-under-test.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

function assertError(reply: Reply, status: number, details?: RegExp): void {
  assert.equal(reply.status, status, reply.text);
  assert.match(String(reply.headers['content-type']), /^application\/json/);
  assert.deepEqual(Object.keys(reply.json).sort(), ['details', 'message', 'status_code']);
  assert.equal(reply.json.status_code, status);
  assert.equal(typeof reply.json.message, 'string');
  assert.ok(reply.json.message.length > 0);
  if (details !== undefined) assert.match(reply.json.details, details);
  assert.doesNotMatch(reply.text, /\bselect\b|\binsert\b|\bat .*\.ts:\d+|node_modules|SQLITE|ER_|violates/i);
}

await describeOnEachDatabase(
  'store errors',
  (s, target) => {
    let productId: number;
    before(async () => {
      productId = (await s.call('POST', '/products', { body: { item_name: 'Anchor' } })).json.id;
    });

    test('bad JSON is a 400', async () => {
      assertError(
        await s.call('POST', '/products', { rawBody: '{"item_name": "x",', headers: { 'content-type': 'application/json' } }),
        400,
        /JSON/,
      );
    });

    test('a wrong type is a 400 naming the field, with no coercion', async () => {
      assertError(await s.call('POST', '/products', { body: { item_name: 'x', price: 'cheap' } }), 400, /price/);
      assertError(await s.call('POST', '/products', { body: { item_name: 'x', quantity_on_hand: '5' } }), 400, /quantity_on_hand/);
      assertError(await s.call('PUT', `/products/${productId}`, { body: { is_hidden: 'yes' } }), 400, /is_hidden/);
      assertError(await s.call('POST', '/orders', { body: { ordered_at: 'last tuesday' } }), 400, /ordered_at/);
      assertError(await s.call('POST', '/products', { body: ['item_name'] }), 400);
    });

    test('a missing required field is a 400 naming it', async () => {
      assertError(await s.call('POST', '/products', { body: { price: 3 } }), 400, /item_name/);
      assertError(await s.call('POST', '/products', { body: { item_name: null } }), 400, /item_name/);
      assertError(await s.call('PUT', `/products/${productId}`, { body: { item_name: null } }), 400, /item_name/);
    });

    test('unknown and read-only fields are ignored, as the platform does: the rest of the body is stored', async () => {
      const made = await s.call('POST', '/products', {
        body: { item_name: 'x', colour: 'red', child_products: [{ id: 1 }], created_at: '2020-01-01T00:00:00Z' },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.json.item_name, 'x');
      assert.equal('colour' in made.json, false);
      assert.notEqual(made.json.created_at, '2020-01-01T00:00:00.000Z');
      const updated = await s.call('PUT', `/products/${made.json.id}`, {
        body: { created_at: '2020-01-01T00:00:00Z', updated_at: '2020-01-01T00:00:00Z', price: 4 },
      });
      assert.equal(updated.status, 200);
      assert.equal(updated.json.created_at, made.json.created_at);
      assert.equal(updated.json.price, 4);
    });

    test('every problem of a body is reported at once', async () => {
      const reply = await s.call('POST', '/products', {
        body: { price: 'cheap', quantity_on_hand: 1.5, is_hidden: 'no', item_number: 'x'.repeat(101) },
      });
      assertError(reply, 400);
      for (const field of ['item_name', 'price', 'quantity_on_hand', 'is_hidden', 'item_number'])
        assert.match(reply.json.details, new RegExp(field));
    });

    test('not found is a 404: unknown record, unknown route, page past the end', async () => {
      assertError(await s.call('GET', '/products/999999'), 404, /999999/);
      assertError(await s.call('GET', '/products/abc'), 404);
      assertError(await s.call('PUT', '/products/999999', { body: { price: 1 } }), 404);
      assertError(await s.call('GET', '/no_such_things.json'), 404);
      assertError(await s.call('GET', '/products?page=999'), 404, /page/i);
    });

    test('a method the route does not have is a 405 with Allow', async () => {
      const patch = await s.call('PATCH', `/products/${productId}`, { body: { price: 1 } });
      assertError(patch, 405);
      assert.match(String(patch.headers.allow), /GET.*PUT.*DELETE/);
      const del = await s.call('DELETE', '/products');
      assertError(del, 405);
      assert.match(String(del.headers.allow), /GET.*POST/);
      assertError(await s.call('POST', `/products/${productId}/categories`, { body: {} }), 405);
    });

    test('an oversized body is a 413', async () => {
      assertError(await s.call('POST', '/products', { body: { item_name: 'x', short_description: 'y'.repeat(100 * 1024) } }), 413);
    });

    test('a body that is not JSON is a 415', async () => {
      assertError(
        await s.call('POST', '/products', { rawBody: 'item_name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        415,
      );
      assertError(await s.call('POST', '/products', { rawBody: '{"item_name":"x"}', headers: { 'content-type': 'text/plain' } }), 415);
      assertError(await s.call('PUT', `/products/${productId}`, { rawBody: '<p/>', headers: { 'content-type': 'application/xml' } }), 415);
    });

    test('bad query parameters are a 400 naming the parameter', async () => {
      assertError(await s.call('GET', '/products?count=0'), 400, /count/);
      assertError(await s.call('GET', '/products?count=100000'), 400, /count/);
      assertError(await s.call('GET', '/products?page=-1'), 400, /page/);
      assertError(await s.call('GET', '/products?sort=colour'), 400, /colour/);
      assertError(await s.call('GET', '/products?fields=id,colour'), 400, /colour/);
      assertError(await s.call('GET', '/products?expand=wheels'), 400, /wheels/);
      assertError(await s.call('GET', '/products?price=gt:cheap'), 400, /price/);
      assertError(await s.call('GET', '/products?is_hidden=maybe'), 400, /is_hidden/);
      assertError(await s.call('GET', '/products?price=like:3'), 400, /price/);
    });

    test('a conflict is a 409 and the server keeps serving', async () => {
      assertError(await s.call('POST', '/products', { body: { item_name: 'x', primary_category_id: 555 } }), 409, /primary_category_id/);
      assert.equal((await s.call('GET', `/products/${productId}`)).status, 200);
    });

    // A file lock another process holds: SQLite only.
    if (target.dialect === 'sqlite') {
      test('a database locked by another process past the wait limit is a 503 with Retry-After, and writes resume after', async () => {
        const other = new DatabaseSync(s.databaseUrl.slice('sqlite:'.length));
        other.exec('begin immediate');
        try {
          const reply = await s.call('POST', '/products', { body: { item_name: 'Blocked' } });
          assertError(reply, 503);
          assert.equal(reply.headers['retry-after'], '1');
        } finally {
          other.exec('rollback');
          other.close();
        }
        assert.equal((await s.call('POST', '/products', { body: { item_name: 'After the lock' } })).status, 201);
      });
    }
  },
  { bodyLimit: 64 * 1024 },
);
