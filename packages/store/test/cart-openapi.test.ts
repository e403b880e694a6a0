/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- documents and replies are JSON checked by assertions */
// The carting API as its OpenAPI document describes it: a validating parser accepts the document, every body and answer
// has a real schema with an example, and a client that follows the document (its examples, its parameters) places an order.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { sqliteTarget } from './support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';

const sqlite = await sqliteTarget();

interface Operation {
  summary: string;
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown>; example?: unknown } } };
  responses: Record<string, { content?: { 'application/json': { schema: Record<string, unknown>; example?: unknown } } }>;
}

/** The operations under /carts/{id}/, as a client reads them. */
const cartOperations = (document: { paths: Record<string, Record<string, Operation>> }) =>
  Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/carts/{id}/'))
    .flatMap(([path, item]) =>
      (['get', 'post', 'put', 'delete'] as const).flatMap((method) =>
        item[method] === undefined ? [] : [{ path, method, operation: item[method] }],
      ),
    );

describe('the carting API in the OpenAPI document', () => {
  let s: StoreUnderTest;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read as JSON
  let document: any;
  before(async () => {
    s = await startStoreUnderTest(sqlite);
    document = (await s.call('GET', '/openapi.json')).json;
  });
  after(() => s?.close());

  test('@apidevtools/swagger-parser validates the whole document', async () => {
    await SwaggerParser.validate(structuredClone(document));
  });

  test('every carting body and answer has a schema with properties, and every body an example', () => {
    const operations = cartOperations(document);
    assert.ok(operations.length >= 10, `${operations.length} carting operations`);
    const bare: string[] = [];
    for (const { path, method, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      const body = operation.requestBody?.content['application/json'];
      if (['post', 'put'].includes(method)) {
        if (body === undefined || body.schema.properties === undefined) bare.push(`${where} body`);
        else if (body.example === undefined) bare.push(`${where} body example`);
      }
      const answer = operation.responses['200']?.content?.['application/json'].schema;
      if (answer === undefined || (answer.$ref === undefined && answer.properties === undefined)) bare.push(`${where} answer`);
    }
    assert.deepEqual(bare, []);
    assert.equal(document.paths['/attributes/{id}'].get.summary, 'Read an attribute');
  });

  test('a client following the document, with its examples, places an order', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an example is any JSON
    const body = (path: string, method: string): any =>
      structuredClone(document.paths[path][method].requestBody.content['application/json'].example);
    const bolt = (await s.call('POST', '/products', { body: { item_name: 'Bolt', price: 2.5 } })).json;
    await s.call('POST', '/custom_shipping_methods', { body: { name: 'Free Ground Shipping', is_enabled: true, markup_amount: '0' } });
    const cart = (await s.call('POST', '/carts', { body: {} })).json;

    const add = body('/carts/{id}/items', 'post');
    add.items[0].product_id = bolt.id;
    const added = await s.call('POST', `/carts/${cart.id}/items`, { body: add });
    assert.equal(added.status, 200, added.text);
    const cartSchema = document.components.schemas.Cart;
    for (const name of Object.keys(added.json)) assert.ok(name in cartSchema.properties, `the Cart schema describes ${name}`);

    const query = document.paths['/carts/{id}/shipping'].get.parameters
      .map((p: { name: string; example: string }) => `${p.name}=${encodeURIComponent(p.example)}`)
      .join('&');
    const rates = await s.call('GET', `/carts/${cart.id}/shipping?${query}`);
    assert.equal(rates.status, 200, rates.text);
    assert.deepEqual(
      Object.keys(rates.json.rates[0]).sort(),
      Object.keys(
        document.paths['/carts/{id}/shipping'].get.responses['200'].content['application/json'].schema.properties.rates.items.properties,
      ).sort(),
    );
    const choose = body('/carts/{id}/shipping', 'put');
    assert.equal(choose.identifier, rates.json.rates[0].identifier, 'the example names the rate a store with that method offers');
    assert.equal((await s.call('PUT', `/carts/${cart.id}/shipping`, { body: choose })).status, 200);
    assert.equal(
      (await s.call('PUT', `/carts/${cart.id}/shipping_estimation`, { body: body('/carts/{id}/shipping_estimation', 'put') })).status,
      200,
    );

    const placed = await s.call('POST', `/carts/${cart.id}/place_order`, { body: body('/carts/{id}/place_order', 'post') });
    assert.equal(placed.status, 200, placed.text);
    const answer = document.paths['/carts/{id}/place_order'].post.responses['200'].content['application/json'];
    assert.deepEqual(Object.keys(placed.json).sort(), Object.keys(answer.schema.properties).sort());
    assert.equal(typeof placed.json.order_id, 'number');
    const order = await s.call('GET', `/orders/${placed.json.order_id}?expand=items`);
    assert.equal(order.json.items[0].product_id, bolt.id);
  });

  test('a nested body reports every problem at once, each at its path', async () => {
    const cart = (await s.call('POST', '/carts', { body: {} })).json;
    const items = await s.call('POST', `/carts/${cart.id}/items`, {
      body: { items: [{ product_id: 'x', quantity: 0 }, { quantity: 2 }, { product_id: 1 }] },
    });
    assert.equal(items.status, 400);
    assert.deepEqual(items.json.details.split('; ').sort(), [
      'items.0.product_id: must be integer',
      'items.0.quantity: must be >= 1',
      'items.1.product_id: is required',
      'items.2.quantity: is required',
    ]);

    // A wrong type and missing parts of the customer and addresses, in one answer.
    const order = await s.call('POST', `/carts/${cart.id}/place_order`, {
      body: { customer: { first_name: 5 }, billing_address: { city: 'Beaumont' } },
    });
    assert.equal(order.status, 400);
    const problems = order.json.details.split('; ');
    for (const expected of [
      'customer.first_name: must be string,null',
      'customer.last_name: is required',
      'customer.email: is required',
      'billing_address.address_line_1: is required',
      'shipping_address: is required',
    ]) {
      assert.ok(problems.includes(expected), `${expected} in ${order.json.details}`);
    }
  });
});
