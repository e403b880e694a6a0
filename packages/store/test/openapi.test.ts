import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { sqliteTarget } from './support/targets.ts';
import { resources } from '../src/resources/registry.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';

const sqlite = await sqliteTarget();

describe('OpenAPI document and docs page', () => {
  let s: StoreUnderTest;
  before(async () => {
    s = await startStoreUnderTest(sqlite);
  });
  after(() => s?.close());

  test('/api/v1/openapi.json is a valid OpenAPI 3.1 document covering every resource route', async () => {
    const reply = await s.call('GET', '/openapi.json');
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^application\/json/);
    const document = reply.json as { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> } };
    assert.equal(document.openapi, '3.1.0');
    const result = await new Validator().validate(structuredClone(document));
    assert.equal(result.valid, true, JSON.stringify(result.errors));

    for (const resource of resources) {
      const can = new Set(resource.operations);
      const collection = document.paths[`/${resource.path}`];
      // /inventory is no list of records: its GET (one item's stock) comes from inventory-routes.ts, checked below.
      assert.equal(Boolean(collection?.get), can.has('list') || resource.name === 'inventory', `${resource.name} list`);
      assert.equal(Boolean(collection?.post), can.has('create'), `${resource.name} create`);
      assert.equal(Boolean(document.paths[`/${resource.path}/select_many`]?.get), can.has('list'), `${resource.name} select_many`);
      const item = document.paths[`/${resource.path}/{id}`];
      assert.equal(Boolean(item?.get), can.has('read'), `${resource.name} read`);
      assert.equal(Boolean(item?.put), can.has('update'), `${resource.name} update`);
      assert.equal(Boolean(item?.delete), can.has('delete'), `${resource.name} delete`);
      for (const nested of can.has('read') ? Object.keys(resource.nested) : []) assert.ok(document.paths[`/${resource.path}/{id}/${nested}`]?.get, `${resource.name}/${nested}`);
    }
    assert.equal(resources.length, 74, 'the platform\'s 73 and webhooks');
    assert.ok(document.paths['/carts/{id}/place_order']?.post);
    assert.ok(document.paths['/products/importMany']?.post);
    for (const change of ['add', 'remove', 'set']) assert.ok(document.paths[`/inventory/${change}`]?.post, change);
    const product = document.components.schemas.ProductCreate as { then?: { required?: string[] }; properties?: Record<string, unknown> } | undefined;
    assert.deepEqual(product?.then?.required, ['item_name'], 'item_name is required when the body names no id');
    for (const field of ['item_name', 'item_number', 'product_status_id', 'primary_category_id', 'price', 'cost', 'retail', 'weight', 'quantity_on_hand', 'short_description', 'is_hidden', 'manufacturer_id', 'keywords', 'sort_order']) {
      assert.ok(product?.properties?.[field], `ProductCreate has ${field}`);
    }
    // Every POST and PUT documents Idempotency-Key; no other method does.
    const keyRef = '#/components/parameters/idempotencyKey';
    const takesKey = (operation: { parameters?: { $ref?: string }[] } | undefined) => operation?.parameters?.some((p) => p.$ref === keyRef) === true;
    const parameters = (document.components as unknown as { parameters: Record<string, { name: string; in: string }> }).parameters;
    assert.deepEqual({ name: parameters.idempotencyKey?.name, in: parameters.idempotencyKey?.in }, { name: 'Idempotency-Key', in: 'header' });
    let writes = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, { parameters?: { $ref?: string }[]; responses?: Record<string, unknown> }>)) {
        if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
        const write = method === 'post' || method === 'put';
        assert.equal(takesKey(operation), write, `${method.toUpperCase()} ${path}`);
        if (write) {
          writes += 1;
          assert.ok(operation.responses?.['422'], `${method.toUpperCase()} ${path} documents 422`);
        }
      }
    }
    assert.ok(writes > 100, `${writes} writes`);
    assert.ok(document.components.schemas.Product?.properties?.created_at);
    assert.equal(document.components.schemas.ProductCreate?.properties?.created_at, undefined);
  });

  test('the docs page is readable HTML describing each resource and the query language', async () => {
    const reply = await s.call('GET', '/docs');
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^text\/html/);
    for (const resource of resources) assert.match(reply.text, new RegExp(`<h2>${resource.name}</h2>`));
    assert.match(reply.text, /startwith/);
    assert.match(reply.text, /openapi\.json/);
    assert.match(reply.text, /Idempotency-Key/);
  });
});
