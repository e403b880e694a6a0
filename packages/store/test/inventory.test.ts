/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// /inventory as docs/resources/inventory.md describes it: stock of a product or a variant, found by one
// identifier, and changed by add, remove and set.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { describeOnEachDatabase } from './support/each-database.ts';

await describeOnEachDatabase('/inventory', (s) => {
  let product: { id: number };
  let variant: { id: number };
  before(async () => {
    product = (
      await s.call('POST', '/products', { body: { item_name: 'Lamp', item_number: 'INV-1', gtin: '00012', quantity_on_hand: 20 } })
    ).json;
    variant = (
      await s.call('POST', '/variant_inventory', {
        body: { product_id: product.id, item_number: 'INV-1-RED', gtin: '00013', inventory: 4 },
      })
    ).json;
    assert.ok(product.id > 0 && variant.id > 0);
  });

  test('GET finds a product or a variant by each identifier, and answers its stock', async () => {
    const ofProduct = {
      product_id: product.id,
      variant_inventory_id: null,
      item_number: 'INV-1',
      item_name: 'Lamp',
      gtin: '00012',
      quantity: 20,
    };
    const ofVariant = {
      product_id: product.id,
      variant_inventory_id: variant.id,
      item_number: 'INV-1-RED',
      item_name: 'Lamp',
      gtin: '00013',
      quantity: 4,
    };
    for (const [query, expected] of [
      [`product_id=${product.id}`, ofProduct],
      ['item_number=INV-1', ofProduct],
      ['gtin=00012', ofProduct],
      ['item_name=Lamp', ofProduct],
      [`variant_inventory_id=${variant.id}`, ofVariant],
      ['item_number=INV-1-RED', ofVariant],
      ['gtin=00013', ofVariant],
    ] as const) {
      const reply = await s.call('GET', `/inventory?${query}`);
      assert.equal(reply.status, 200, `${query}: ${reply.text}`);
      assert.deepEqual(reply.json, expected, query);
    }
    const none = await s.call('GET', '/inventory');
    assert.equal(none.status, 400);
    assert.match(none.json.details, /product_id/);
    assert.equal((await s.call('GET', '/inventory?item_number=NOPE')).status, 404);
    assert.equal((await s.call('GET', '/inventory?product_id=x')).status, 400);
    assert.equal((await s.call('PUT', '/inventory', { body: {} })).status, 405);
  });

  test('add, remove and set change the stock the product and variant records show', async () => {
    const add = await s.call('POST', '/inventory/add', { body: { product_id: product.id, quantity: 3 } });
    assert.equal(add.status, 200, add.text);
    assert.equal(add.json.quantity, 23);
    const remove = await s.call('POST', '/inventory/remove', { body: { item_number: 'INV-1', quantity: 5 } });
    assert.equal(remove.json.quantity, 18);
    assert.equal((await s.call('GET', `/products/${product.id}`)).json.quantity_on_hand, 18);
    const set = await s.call('POST', '/inventory/set', { body: { variant_inventory_id: variant.id, quantity: 10 } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual([set.json.variant_inventory_id, set.json.quantity], [variant.id, 10]);
    assert.equal((await s.call('GET', `/variant_inventory/${variant.id}`)).json.inventory, 10);
    for (const body of [
      { product_id: product.id },
      { product_id: product.id, quantity: -1 },
      { product_id: product.id, quantity: 1.5 },
      { quantity: 1 },
    ]) {
      const refused = await s.call('POST', '/inventory/add', { body });
      assert.equal(refused.status, 400, JSON.stringify(body));
    }
    assert.equal((await s.call('POST', '/inventory/set', { body: { item_number: 'NOPE', quantity: 1 } })).status, 404);
  });

  test('concurrent adds all count, and a write to the product is seen by the next GET', async () => {
    const start = (await s.call('GET', `/inventory?product_id=${product.id}`)).json.quantity;
    const adds = await Promise.all(
      Array.from({ length: 12 }, () => s.call('POST', '/inventory/add', { body: { product_id: product.id, quantity: 1 } })),
    );
    assert.ok(adds.every((reply) => reply.status === 200));
    assert.equal((await s.call('GET', `/inventory?product_id=${product.id}`)).json.quantity, start + 12);
    await s.call('PUT', `/products/${product.id}`, { body: { quantity_on_hand: 7 } });
    assert.equal((await s.call('GET', `/inventory?product_id=${product.id}`)).json.quantity, 7, 'not an answer cached before the write');
  });
});
