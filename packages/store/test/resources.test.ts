/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- replies are JSON checked by assertions */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeOnEachDatabase } from './support/each-database.ts';

await describeOnEachDatabase('store resources', (s) => {
  test('a created product comes back 201, then shows in the list, with or without .json', async () => {
    const status = await s.call('POST', '/product_statuses.json', { body: { name: 'Active' } });
    assert.equal(status.status, 201);
    const created = await s.call('POST', '/products.json', {
      body: { item_name: 'Brass bolt', item_number: 'BB-1', product_status_id: status.json.id, price: 2.5, is_hidden: false },
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(created.json.item_name, 'Brass bolt');
    assert.equal(created.json.price, 2.5);
    assert.equal(created.json.is_hidden, 0, 'products answer is_hidden as 0/1, as the platform does');
    assert.equal(created.json.quantity_on_hand, null);
    assert.match(created.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    for (const path of ['/products', '/products.json']) {
      const list = await s.call('GET', `${path}?item_number=BB-1`);
      assert.equal(list.status, 200);
      assert.match(String(list.headers['content-type']), /^application\/json/);
      assert.equal(list.json.total_count, 1);
      assert.deepEqual(list.json.products, [created.json]);
      assert.equal('next_page' in list.json, false);
      assert.equal('previous_page' in list.json, false);
    }
    const one = await s.call('GET', `/products/${created.json.id}.json`);
    assert.deepEqual(one.json, created.json);
  });

  test('update is partial, delete answers 200 with an empty body, and then the record is gone', async () => {
    const made = await s.call('POST', '/products', { body: { item_name: 'Nut', price: 1, weight: 0.5 } });
    const updated = await s.call('PUT', `/products/${made.json.id}`, { body: { price: 1.25 } });
    assert.equal(updated.status, 200);
    assert.equal(updated.json.price, 1.25);
    assert.equal(updated.json.weight, 0.5);
    assert.equal(updated.json.item_name, 'Nut');
    assert.ok(updated.json.updated_at >= made.json.updated_at);
    const removed = await s.call('DELETE', `/products/${made.json.id}.json`);
    assert.equal(removed.status, 200);
    assert.equal(removed.text, '');
    assert.equal((await s.call('GET', `/products/${made.json.id}`)).status, 404);
    assert.equal((await s.call('DELETE', `/products/${made.json.id}`)).status, 404);
  });

  test('every declared resource can be created, read and listed', async () => {
    const category = await s.call('POST', '/categories', { body: { name: 'Hardware' } });
    const manufacturer = await s.call('POST', '/manufacturers', { body: { name: 'Acme' } });
    const customer = await s.call('POST', '/customers', { body: { email: 'ann@example.com', first_name: 'Ann' } });
    const orderStatus = await s.call('POST', '/order_statuses', { body: { name: 'New', is_open: true } });
    for (const reply of [category, manufacturer, customer, orderStatus]) assert.equal(reply.status, 201, reply.text);
    const product = await s.call('POST', '/products', {
      body: { item_name: 'Hinge', primary_category_id: category.json.id, manufacturer_id: manufacturer.json.id },
    });
    assert.equal(product.status, 201, product.text);
    const order = await s.call('POST', '/orders', {
      body: {
        customer_id: customer.json.id,
        order_status_id: orderStatus.json.id,
        ordered_at: '2026-01-02T03:04:05+02:00',
        grand_total: 9.5,
      },
    });
    assert.equal(order.status, 201, order.text);
    assert.equal(order.json.ordered_at, '2026-01-02T01:04:05.000Z');
    const item = await s.call('POST', '/order_items', {
      body: { order_id: order.json.id, product_id: product.json.id, quantity: 2, price: 4.75 },
    });
    assert.equal(item.status, 201, item.text);

    const items = await s.call('GET', `/orders/${order.json.id}/items.json`);
    assert.equal(items.status, 200);
    assert.equal(items.json.total_count, 1);
    assert.deepEqual(items.json.order_items, [item.json]);
    const customerOrders = await s.call('GET', `/customers/${customer.json.id}/orders`);
    assert.deepEqual(
      customerOrders.json.orders.map((o: { id: number }) => o.id),
      [order.json.id],
    );
    const expanded = await s.call('GET', `/orders/${order.json.id}`);
    assert.equal(expanded.json.customer_id, customer.json.id);
    const withItems = await s.call('GET', `/orders?id=${order.json.id}&expand=items`);
    assert.deepEqual(withItems.json.orders[0].items, [item.json]);
    const manufacturerProducts = await s.call('GET', `/manufacturers/${manufacturer.json.id}/products`);
    assert.deepEqual(
      manufacturerProducts.json.products.map((p: { id: number }) => p.id),
      [product.json.id],
    );
    assert.equal((await s.call('GET', '/orders/999999/items')).status, 404);

    // Deleting an order takes its items with it; a product still on an order cannot be deleted.
    const blocked = await s.call('POST', '/orders', { body: {} });
    await s.call('POST', '/order_items', { body: { order_id: blocked.json.id, product_id: product.json.id } });
    const blocking = await s.call('GET', `/order_items?order_id=${blocked.json.id}`);
    const refused = await s.call('DELETE', `/products/${product.json.id}`);
    assert.equal(refused.status, 409);
    assert.match(
      refused.json.details,
      new RegExp(
        `^product ${product.json.id} is still referred to by order_items (?:\\d+, )*${blocking.json.order_items[0].id}\\b.* \\(product_id\\)`,
      ),
      'the refusal names the records in the way',
    );
    assert.equal((await s.call('GET', `/products/${product.json.id}`)).status, 200);
    assert.equal((await s.call('DELETE', `/orders/${order.json.id}`)).status, 200);
    assert.equal((await s.call('GET', `/order_items/${item.json.id}`)).status, 404);
  });

  test('an unknown foreign key is refused, naming the field, and nothing is stored', async () => {
    const before = (await s.call('GET', '/products?count=1')).json.total_count;
    const reply = await s.call('POST', '/products', { body: { item_name: 'Ghost', product_status_id: 987654 } });
    assert.equal(reply.status, 409);
    assert.deepEqual(Object.keys(reply.json).sort(), ['details', 'message', 'status_code']);
    assert.equal(reply.json.status_code, 409);
    assert.match(reply.json.details, /product_status_id/);
    const order = await s.call('POST', '/order_items', { body: { order_id: 424242 } });
    assert.equal(order.status, 409);
    assert.match(order.json.details, /order_id/);
    const made = await s.call('POST', '/products', { body: { item_name: 'Real' } });
    const update = await s.call('PUT', `/products/${made.json.id}`, { body: { manufacturer_id: 31337 } });
    assert.equal(update.status, 409);
    assert.match(update.json.details, /manufacturer_id/);
    assert.equal((await s.call('GET', '/products?count=1')).json.total_count, before + 1);
  });
});
