/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- replies are JSON checked by assertions */
// The platform's whole surface: every resource of reference/store-resources.json (the platform's facts, copied into the package) with the routes its
// paths allow, the route families of docs/common_usage.md, and what a fresh store starts with.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { FieldDeclaration, ResourceDeclaration } from '../src/model/declaration.ts';
import { resourceNamed, resources } from '../src/model/registry.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

const facts = JSON.parse(readFileSync(new URL('../reference/store-resources.json', import.meta.url), 'utf8')) as {
  schemas: Record<string, Record<string, string>>;
  paths: Record<string, string[]>;
};

/** A value a field accepts; references are made first, through the API. */
function sample(field: FieldDeclaration, name: string): unknown {
  switch (field.type) {
    case 'string':
      return name === 'email' ? `${Math.random().toString(36).slice(2)}@example.com` : `${name} 1`;
    case 'integer':
      return 3;
    case 'number':
      return 2.5;
    case 'boolean':
      return true;
    case 'flag':
      return 1;
    case 'datetime':
      return '2026-03-04T05:06:07-06:00';
    case 'json':
      return [{ a: 1 }];
  }
}

test('every resource and field of the facts file is declared, with its type', () => {
  const declared = new Map(resources.map((r) => [r.name, r]));
  let fields = 0;
  for (const [name, schema] of Object.entries(facts.schemas)) {
    const resource = declared.get(name);
    assert.ok(resource !== undefined, `${name} is declared`);
    for (const [field, type] of Object.entries(schema)) {
      fields += 1;
      const own: { type: string } | undefined =
        resource.fields[field] ?? (resource.nested[field] === undefined ? undefined : { type: 'nested' });
      assert.ok(own !== undefined, `${name}.${field} is declared`);
      if (type === 'boolean') assert.equal(own.type, 'boolean', `${name}.${field}`);
      if (type.startsWith('array') || type === 'object') assert.ok(own.type === 'json' || own.type === 'nested', `${name}.${field}`);
    }
  }
  assert.equal(Object.keys(facts.schemas).length, 73);
  assert.equal(fields, 1332);
});

await describeOnEachDatabase("the platform's surface", (s) => {
  /** Creates a record with every writable field set, making what it references first. */
  async function make(resource: ResourceDeclaration, depth = 0): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.readOnly === true || field.hidden === true) continue;
      if (field.references === undefined) body[name] = sample(field, name);
      else if (field.required === true || depth === 0) {
        const target = resourceNamed(field.references);
        // Records the API cannot create (the store itself, admin users) exist already.
        body[name] =
          target.operations.includes('create') && target.name !== resource.name && depth < 2
            ? (await make(target, depth + 1)).id
            : target.name === 'stores'
              ? 1
              : null;
      }
    }
    const reply = await s.call('POST', `/${resource.path}`, { body });
    assert.equal(reply.status, 201, `${resource.name}: ${reply.text}`);
    return reply.json as Record<string, unknown>;
  }

  test('every resource answers the methods its platform paths list, and no others', async () => {
    // Webhook subscriptions have their own suite; every other resource is one of the platform's.
    for (const resource of resources.filter((r) => r.name in facts.schemas)) {
      const methods = facts.paths[`/${resource.path}`];
      const list = await s.call('GET', `/${resource.path}?count=1000`);
      if (resource.operations.includes('list')) {
        assert.equal(list.status, 200, `${resource.name}: ${list.text}`);
        assert.ok(Array.isArray(list.json[resource.name]), resource.name);
      }
      if (methods !== undefined && !methods.includes('POST') && resource.name !== 'carts') {
        const refused = await s.call('POST', `/${resource.path}`, { body: {} });
        assert.ok([404, 405].includes(refused.status), `${resource.name} refuses POST: ${refused.status}`);
        continue;
      }
      if (!resource.operations.includes('create')) continue;
      const created = await make(resource);
      const id = created.id as number;
      const read = await s.call('GET', `/${resource.path}/${id}`);
      assert.equal(read.status, 200, `${resource.name}: ${read.text}`);
      assert.deepEqual(read.json, created);
      // On SQLite the database writes a created record's answer as JSON itself: in a single read's order too.
      assert.deepEqual(Object.keys(created), Object.keys(read.json), resource.name);
      if (resource.operations.includes('list')) {
        // On SQLite the database writes list pages as JSON itself: they must say what a single read says, in its order.
        const listed = await s.call('GET', `/${resource.path}?id=${id}`);
        assert.equal(listed.status, 200, `${resource.name}: ${listed.text}`);
        assert.deepEqual(listed.json[resource.name], [created], resource.name);
        assert.deepEqual(Object.keys(listed.json[resource.name][0]), Object.keys(created), resource.name);
      }
      const field = Object.entries(resource.fields).find(
        ([name, f]) => f.type === 'string' && f.readOnly !== true && f.hidden !== true && name !== 'email' && f.encrypted !== true,
      );
      if (field !== undefined && resource.operations.includes('update')) {
        const updated = await s.call('PUT', `/${resource.path}/${id}`, { body: { [field[0]]: 'changed' } });
        assert.equal(updated.status, 200, `${resource.name}: ${updated.text}`);
        assert.equal(updated.json[field[0]], 'changed');
      }
      if (resource.operations.includes('delete')) {
        const removed = await s.call('DELETE', `/${resource.path}/${id}`);
        // A record others still refer to (through the older tables' foreign keys) stays, with a 409.
        assert.ok([200, 409].includes(removed.status), `${resource.name}: ${removed.text}`);
      }
    }
  });

  test('a fresh store starts with the platform defaults, with stable ids', async () => {
    const statuses = (await s.call('GET', '/product_statuses?sort=id')).json.product_statuses;
    assert.deepEqual(
      statuses.slice(0, 3).map((row: { id: number; name: string }) => [row.id, row.name]),
      [
        [1, 'In Stock'],
        [2, 'Out of Stock'],
        [3, 'Back Ordered'],
      ],
    );
    const orderStatuses = (await s.call('GET', '/order_statuses?sort=id')).json.order_statuses;
    assert.deepEqual(orderStatuses[0], { ...orderStatuses[0], id: 1, name: 'New', is_open: true });
    assert.ok(orderStatuses.some((row: { name: string; is_shipped: boolean }) => row.name === 'Shipped' && row.is_shipped));
    const root = (await s.call('GET', '/categories/1')).json;
    assert.equal(root.name, 'Home');
    assert.equal(root.parent_category_id, null);
    const types = (await s.call('GET', '/customer_types?sort=id')).json.customer_types;
    assert.deepEqual(
      types.slice(0, 2).map((row: { name: string }) => row.name),
      ['Retail', 'Wholesale'],
    );
    const methods = (await s.call('GET', '/payment_methods?sort=id')).json.payment_methods;
    assert.ok(methods.some((row: { payment_type: string }) => row.payment_type === 'Custom'));
    const store = (await s.call('GET', '/stores')).json.stores;
    assert.equal(store[0].id, 1);
    assert.equal('plan' in store[0], false, 'only the declared fields of a store are answered');
  });

  test('POST with an existing id updates (200); without one, or with an unknown one, creates (201)', async () => {
    const made = await s.call('POST', '/products', {
      body: { item_name: 'Upsert me', product_status_id: 1, primary_category_id: 1, price: 3 },
    });
    assert.equal(made.status, 201);
    const again = await s.call('POST', '/products', { body: { id: made.json.id, price: 4 } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.id, made.json.id);
    assert.equal(again.json.price, 4);
    assert.equal(again.json.item_name, 'Upsert me');
    const fresh = await s.call('POST', '/products', { body: { id: 987654, item_name: 'New one' } });
    assert.equal(fresh.status, 201);
    assert.notEqual(fresh.json.id, 987654);
    const missing = await s.call('POST', '/products', { body: { id: 987655 } });
    assert.equal(missing.status, 400);
    assert.match(missing.json.details, /item_name/);
  });

  test('select_many answers the records of the given ids, and 400 without ids', async () => {
    const a = (await s.call('POST', '/manufacturers', { body: { name: 'A' } })).json;
    const b = (await s.call('POST', '/manufacturers', { body: { name: 'B' } })).json;
    const many = await s.call('GET', `/manufacturers/select_many?ids=${b.id},${a.id},999999&sort=-name`);
    assert.equal(many.status, 200);
    assert.deepEqual(
      many.json.manufacturers.map((m: { name: string }) => m.name),
      ['B', 'A'],
    );
    assert.equal(many.json.total_count, 2);
    const picked = await s.call('GET', `/manufacturers/select_many.json?ids=${a.id}&fields=id,name`);
    assert.deepEqual(picked.json.manufacturers, [{ id: a.id, name: 'A' }]);
    for (const bad of ['', '?ids=', '?ids=1,x']) {
      const reply = await s.call('GET', `/manufacturers/select_many${bad}`);
      assert.equal(reply.status, 400, bad);
      assert.equal(reply.json.status_code, 400);
    }
  });

  test('filled inlines every nested collection; fields naming a collection expands it', async () => {
    const product = (await s.call('POST', '/products', { body: { item_name: 'Filled', price: 1 } })).json;
    await s.call('POST', '/product_pictures', { body: { product_id: product.id, image_file: '/a.jpg' } });
    await s.call('POST', '/product_variants', { body: { product_id: product.id, description: 'Red' } });
    await s.call('PUT', `/products/${product.id}/categories/1`);
    const filled = await s.call('GET', `/products/${product.id}/filled`);
    assert.equal(filled.status, 200);
    for (const name of Object.keys(resourceNamed('products').nested)) assert.ok(Array.isArray(filled.json[name]), name);
    assert.equal(filled.json.pictures[0].image_file, '/a.jpg');
    assert.equal(filled.json.variants[0].description, 'Red');
    assert.deepEqual(
      filled.json.categories.map((c: { id: number }) => c.id),
      [1],
    );
    const some = await s.call('GET', `/products/${product.id}?fields=id,item_name,variants`);
    assert.deepEqual(Object.keys(some.json).sort(), ['id', 'item_name', 'variants']);
    const nestedView = await s.call('GET', `/product_nested_variant?product_id=${product.id}`);
    assert.deepEqual(
      nestedView.json.product_nested_variant.map((v: { description: string }) => v.description),
      ['Red'],
    );
    assert.equal((await s.call('GET', '/products/999999/filled')).status, 404);
  });

  test('the platform wire forms: 0/1 flags, 0 as no reference, numbers for text fields, JSON fields', async () => {
    const made = await s.call('POST', '/products', {
      body: { item_name: 'Wire', is_hidden: 1, manufacturer_id: 0, long_description_1: 42 },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.json.is_hidden, 1);
    assert.equal(made.json.manufacturer_id, null);
    assert.equal(made.json.long_description_1, '42');
    const hidden = await s.call('GET', '/products?is_hidden=1&item_name=Wire');
    assert.equal(hidden.json.total_count, 1);
    const region = await s.call('POST', '/regions', {
      body: { name: 'West', states: ['CA', 'OR'], postal_codes: [{ from: '90000', to: '96199' }] },
    });
    assert.equal(region.status, 201, region.text);
    assert.deepEqual(region.json.states, ['CA', 'OR']);
    assert.deepEqual((await s.call('GET', `/regions/${region.json.id}`)).json.postal_codes, [{ from: '90000', to: '96199' }]);
  });

  test('count accepts 1000, and a list of 1000 products with every field pages correctly', async () => {
    for (let batch = 0; batch < 1005; batch += 15) {
      const writes = [];
      for (let i = batch; i < Math.min(batch + 15, 1005); i += 1)
        writes.push(s.call('POST', '/products', { body: { item_name: `Bulk ${i}`, item_number: `BULK-${i}`, price: i } }));
      for (const reply of await Promise.all(writes)) assert.equal(reply.status, 201);
    }
    const page = await s.call('GET', '/products?item_number=startwith:BULK-&count=1000&sort=id');
    assert.equal(page.status, 200);
    assert.equal(page.json.products.length, 1000);
    assert.equal(page.json.total_count, 1005);
    assert.equal(Object.keys(page.json.products[0]).length, Object.keys(resourceNamed('products').fields).length);
    const rest = await s.call('GET', page.json.next_page);
    assert.equal(rest.json.products.length, 5);
    assert.equal((await s.call('GET', '/products?count=1001')).status, 400);
  });

  test('POST /products/importMany creates and updates per line, by sku or id, with categories and manufacturers', async () => {
    const existing = (await s.call('POST', '/products', { body: { item_name: 'Old', item_number: 'SKU-OLD', price: 1 } })).json;
    const reply = await s.call('POST', '/products/importMany', {
      body: [
        { lookup_by_sku: true, product: { item_number: 'SKU-OLD', price: 9 } },
        { product: { item_name: 'Brand new', item_number: 'SKU-NEW' }, category: { name: 'Shoes' }, manufacturer: { name: 'Nike' } },
        { product: { id: existing.id, item_name: 'Renamed' } },
        { product: { price: 5 } },
      ],
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.total_errors, 1);
    assert.deepEqual(
      reply.json.results.map((r: { line_item: number; status_code: number }) => [r.line_item, r.status_code]),
      [
        [0, 200],
        [1, 201],
        [2, 200],
        [3, 400],
      ],
    );
    assert.equal(reply.json.results[0].entity_id, existing.id);
    const updated = (await s.call('GET', `/products/${existing.id}`)).json;
    assert.equal(updated.price, 9);
    assert.equal(updated.item_name, 'Renamed');
    const made = (await s.call('GET', `/products/${reply.json.results[1].entity_id}`)).json;
    const category = (await s.call('GET', `/categories/${made.primary_category_id}`)).json;
    const manufacturer = (await s.call('GET', `/manufacturers/${made.manufacturer_id}`)).json;
    assert.equal(category.name, 'Shoes');
    assert.equal(manufacturer.name, 'Nike');
    assert.equal((await s.call('POST', '/products/importMany', { body: { product: {} } })).status, 400);
  });
});
