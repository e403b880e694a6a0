/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- replies are JSON checked by assertions */
// The carting API of docs/api-carting.md, from an empty cart to a placed order.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { openDatabase } from '@app/database';
import { describeOnEachDatabase } from './support/each-database.ts';

const address = { name: 'John Doe', address_line_1: '123 Test St', city: 'Beaumont', state: 'TX', postal_code: '77702', country: 'US' };
const card = { number: '4111 1111 1111 1111', name: 'John Doe', expiration_month: '12', expiration_year: '2099', cvv: '111' };

await describeOnEachDatabase('carts', (s) => {
  let bolt: { id: number };
  let nut: { id: number };
  before(async () => {
    bolt = (
      await s.call('POST', '/products', { body: { item_name: 'Bolt', item_number: 'B-1', price: 2.5, weight: 0.25, product_status_id: 1 } })
    ).json;
    nut = (await s.call('POST', '/products', { body: { item_name: 'Nut', item_number: 'N-1', price: 0.4, weight: 0.05 } })).json;
    await s.call('POST', '/custom_shipping_methods', { body: { name: 'Free Ground Shipping', is_enabled: true, markup_amount: '0' } });
    await s.call('POST', '/custom_shipping_methods', {
      body: { name: 'Express', is_enabled: true, markup_type: 'Flat', markup_amount: '12.50' },
    });
    await s.call('POST', '/custom_shipping_methods', {
      body: { name: 'Back office', is_enabled: true, admin_only: true, markup_amount: '1' },
    });
  });

  const newCart = async () => {
    const reply = await s.call('POST', '/carts', { rawBody: 'null', headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 201, reply.text);
    return reply.json as { id: number };
  };

  test('items are added, merged, updated and removed, and the cart answers its totals each time', async () => {
    const cart = await newCart();
    let reply = await s.call('POST', `/carts/${cart.id}/items`, {
      body: {
        items: [
          { product_id: bolt.id, quantity: 3 },
          { product_id: nut.id, quantity: 10 },
        ],
      },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.subtotal, 11.5);
    assert.equal(reply.json.grand_total, 11.5);
    assert.equal(reply.json.items.length, 2);
    reply = await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 1 }] } });
    const boltLine = reply.json.items.find((line: { product_id: number }) => line.product_id === bolt.id);
    assert.equal(boltLine.quantity, 4, 'the same product adds to its line');
    assert.equal(boltLine.price, 2.5);
    reply = await s.call('PUT', `/carts/${cart.id}/items`, { body: { items: [{ cart_item_id: boltLine.id, quantity: 2 }] } });
    assert.equal(reply.json.subtotal, 9);
    const nutLine = reply.json.items.find((line: { product_id: number }) => line.product_id === nut.id);
    reply = await s.call('DELETE', `/carts/${cart.id}/items`, { body: { cart_item_ids: [nutLine.id] } });
    assert.deepEqual(
      reply.json.items.map((line: { product_id: number }) => line.product_id),
      [bolt.id],
    );
    reply = await s.call('DELETE', `/carts/${cart.id}/items`);
    assert.deepEqual(reply.json.items, []);
    assert.equal(reply.json.subtotal, 0);

    assert.equal((await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: 999999, quantity: 1 }] } })).status, 409);
    assert.equal(
      (await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 0 }] } })).status,
      400,
    );
    assert.equal(
      (await s.call('PUT', `/carts/${cart.id}/items`, { body: { items: [{ cart_item_id: 999999, quantity: 1 }] } })).status,
      409,
    );
    assert.equal((await s.call('POST', '/carts/999999/items', { body: { items: [{ product_id: bolt.id, quantity: 1 }] } })).status, 404);
  });

  test('shipping rates come from the enabled custom methods; the chosen one sets the shipping total', async () => {
    const cart = await newCart();
    await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 2 }] } });
    assert.equal((await s.call('GET', `/carts/${cart.id}/shipping?city=Round+Rock&state=TX`)).status, 400);
    const rates = await s.call('GET', `/carts/${cart.id}/shipping?city=Round+Rock&state=TX&postal_code=78681&country=US`);
    assert.equal(rates.status, 200);
    assert.deepEqual(
      rates.json.rates.map((r: { description: string; total_charges: number }) => [r.description, r.total_charges]),
      [
        ['Free Ground Shipping', 0],
        ['Express', 12.5],
      ],
    );
    assert.equal(rates.json.total_count, 2);
    const express = rates.json.rates[1];
    assert.equal(express.provider, 'Custom');
    const set = await s.call('PUT', `/carts/${cart.id}/shipping`, { body: { identifier: express.identifier } });
    assert.equal(set.status, 200);
    assert.equal(set.json.shipping_total, 12.5);
    assert.equal(set.json.grand_total, 17.5);
    assert.equal('selected_shipping_method' in set.json, false);
    assert.equal((await s.call('PUT', `/carts/${cart.id}/shipping`, { body: { identifier: 'UPS;Ground;UPS Ground' } })).status, 409);
    const estimate = await s.call('PUT', `/carts/${cart.id}/shipping_estimation`, {
      body: { city: 'Beaumont', state_code: 'TX', postal_code: '77701' },
    });
    assert.equal(estimate.json.shipping_estimate_city, 'Beaumont');
    assert.equal(estimate.json.shipping_estimate_postal_code, '77701');
    const calculated = await s.call('GET', `/carts/${cart.id}/calculated`);
    assert.equal(calculated.json.grand_total, 17.5);
  });

  test('a coupon code discounts the cart through its discount method; an unknown one is refused', async () => {
    await s.call('POST', '/coupon_codes', { body: { coupon_code: '10PERCENTOFF', is_active: true } });
    const method = (await s.call('POST', '/discount_methods', { body: { name: 'Ten percent', is_enabled: true } })).json;
    await s.call('POST', '/discount_rules', { body: { discount_method_id: method.id, type: 'CouponCode', target: '10PERCENTOFF' } });
    await s.call('POST', '/discount_actions', {
      body: { discount_method_id: method.id, is_active: true, modifier_type: 'Percent', modifier_amount: '10' },
    });
    const cart = await newCart();
    await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 4 }] } });
    const reply = await s.call('PUT', `/carts/${cart.id}/coupon_code`, { body: { coupon_code: '10PERCENTOFF' } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.coupon_code, '10PERCENTOFF');
    assert.equal(reply.json.discount_total, 1);
    assert.equal(reply.json.grand_total, 9);
    assert.equal((await s.call('PUT', `/carts/${cart.id}/coupon_code`, { body: { coupon_code: 'NOPE' } })).status, 409);
  });

  test('a valid coupon that no discount reaches is applied with a warning naming the missing link, not a silent 0', async () => {
    const cart = await newCart();
    await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 4 }] } });
    const apply = async () => {
      const reply = await s.call('PUT', `/carts/${cart.id}/coupon_code`, { body: { coupon_code: 'LONELY' } });
      assert.equal(reply.status, 200, reply.text);
      return reply.json as { discount_total: number; warnings?: string[] };
    };
    await s.call('POST', '/coupon_codes', { body: { coupon_code: 'LONELY', is_active: true } });
    let reply = await apply();
    assert.equal(reply.discount_total, 0);
    assert.match(
      reply.warnings?.[0] ?? '',
      /^coupon_code: "LONELY" is applied but no discount method gives it a discount: no discount_rules row has type "CouponCode" and target "LONELY"/,
    );

    const method = (await s.call('POST', '/discount_methods', { body: { name: 'Lonely', is_enabled: false } })).json;
    await s.call('POST', '/discount_rules', { body: { discount_method_id: method.id, type: 'CouponCode', target: 'LONELY' } });
    reply = await apply();
    assert.match(reply.warnings?.[0] ?? '', new RegExp(`discount method ${method.id} \\(its rule targets "LONELY"\\) is not enabled`));

    await s.call('PUT', `/discount_methods/${method.id}`, { body: { is_enabled: true } });
    const action = (
      await s.call('POST', '/discount_actions', {
        body: { discount_method_id: method.id, is_active: false, modifier_type: 'Amount', modifier_amount: '3' },
      })
    ).json;
    reply = await apply();
    assert.match(reply.warnings?.[0] ?? '', new RegExp(`discount method ${method.id} has no active discount action`));

    await s.call('PUT', `/discount_actions/${action.id}`, { body: { is_active: true } });
    reply = await apply();
    assert.equal(reply.discount_total, 3);
    assert.equal('warnings' in reply, false, 'a coupon that discounts says nothing more');
  });

  test("payment methods always include method 0 for cards, then the store's own", async () => {
    const cart = await newCart();
    const reply = await s.call('GET', `/carts/${cart.id}/payment_methods`);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json.payment_methods[0], { payment_method_id: 0, name: 'Credit Card', payment_type: 'CreditCard' });
    assert.ok(reply.json.payment_methods.some((m: { name: string }) => m.name === 'Send Check or Money Order'));
    assert.equal(reply.json.total_count, reply.json.payment_methods.length);
  });

  test("place_order makes the customer, addresses, order, items and payment at once, keeping only the card's last four", async () => {
    const cart = await newCart();
    await s.call('POST', `/carts/${cart.id}/items`, {
      body: {
        items: [
          { product_id: bolt.id, quantity: 2 },
          { product_id: nut.id, quantity: 5 },
        ],
      },
    });
    const rates = (await s.call('GET', `/carts/${cart.id}/shipping?city=Beaumont&state=TX&postal_code=77702&country=US`)).json.rates;
    await s.call('PUT', `/carts/${cart.id}/shipping`, { body: { identifier: rates[1].identifier } });
    const placed = await s.call('POST', `/carts/${cart.id}/place_order`, {
      body: {
        customer: { first_name: 'John', last_name: 'Doe', email: 'jdoe@example.com' },
        billing_address: address,
        use_billing_address_for_shipping: true,
        credit_card: card,
        gift_message: 'Enjoy',
      },
    });
    assert.equal(placed.status, 200, placed.text);
    assert.equal(placed.json.order_approved, true);
    assert.match(placed.json.message, new RegExp(`OrderID ${placed.json.order_id}`));
    const order = (await s.call('GET', `/orders/${placed.json.order_id}/filled`)).json;
    assert.equal(order.subtotal, 7);
    assert.equal(order.shipping_total, 12.5);
    assert.equal(order.grand_total, 19.5);
    assert.equal(order.selected_shipping_method, 'Express');
    assert.equal(order.order_status_id, 1);
    assert.equal(order.gift_message, 'Enjoy');
    assert.deepEqual(
      order.items.map((i: { item_name: string; quantity: number; weight: number }) => [i.item_name, i.quantity, i.weight]),
      [
        ['Bolt', 2, 0.25],
        ['Nut', 5, 0.05],
      ],
    );
    assert.equal(order.payments.length, 1);
    assert.equal(order.payments[0].last_four, '1111');
    assert.equal(order.payments[0].card_type, 'Visa');
    assert.equal(order.payments[0].amount, 19.5);
    const customer = (await s.call('GET', `/customers/${order.customer_id}?expand=addresses`)).json;
    assert.equal(customer.email, 'jdoe@example.com');
    assert.equal(customer.addresses[0].city, 'Beaumont');
    const billing = (await s.call('GET', `/order_addresses/${order.order_billing_address_id}`)).json;
    assert.equal(billing.address_line_1, '123 Test St');
    assert.equal(order.order_shipping_address_id, order.order_billing_address_id);

    // The number and CVV were never written anywhere.
    const database = await openDatabase<Record<string, Record<string, unknown>>>(s.databaseUrl);
    try {
      for (const table of ['order_payments', 'orders', 'carts', 'customers']) {
        const rows = await database.db.selectFrom(table).selectAll().execute();
        assert.ok(!JSON.stringify(rows).includes('4111111111111111') && !JSON.stringify(rows).includes('4111 1111'), table);
      }
      const [payment] = await database.db
        .selectFrom('order_payments')
        .select('cardholder_name')
        .where('order_id', '=', placed.json.order_id)
        .execute();
      assert.match(String(payment?.cardholder_name), /^enc:v1:/, "the cardholder's name is encrypted at rest");
    } finally {
      await database.close();
    }

    const again = await s.call('POST', `/carts/${cart.id}/place_order`, {
      body: { customer: { id: order.customer_id }, billing_address: address, use_billing_address_for_shipping: true, credit_card: card },
    });
    assert.equal(again.status, 409, 'a cart becomes one order only');
    assert.equal(
      (await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 1 }] } })).status,
      409,
    );
  });

  test('place_order refuses a bad card, a taken email and missing parts, all problems at once, writing nothing', async () => {
    const cart = await newCart();
    await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 1 }] } });
    const ordersBefore = (await s.call('GET', '/orders?count=1')).json.total_count;
    const customersBefore = (await s.call('GET', '/customers?count=1')).json.total_count;
    const missing = await s.call('POST', `/carts/${cart.id}/place_order`, {
      body: { customer: { first_name: 'A' }, billing_address: { name: 'A' } },
    });
    assert.equal(missing.status, 400);
    for (const part of ['customer.last_name', 'customer.email', 'billing_address.city', 'shipping_address'])
      assert.match(missing.json.details, new RegExp(part.replace('.', '\\.')));
    const badCard = await s.call('POST', `/carts/${cart.id}/place_order`, {
      body: {
        customer: { first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com' },
        billing_address: address,
        use_billing_address_for_shipping: true,
        credit_card: { ...card, number: '4111111111111112', cvv: 'x' },
      },
    });
    assert.equal(badCard.status, 400);
    assert.match(badCard.json.details, /number/);
    assert.match(badCard.json.details, /cvv/);
    const taken = await s.call('POST', `/carts/${cart.id}/place_order`, {
      body: {
        customer: { first_name: 'J', last_name: 'D', email: 'jdoe@example.com' },
        billing_address: address,
        use_billing_address_for_shipping: true,
        credit_card: card,
      },
    });
    assert.equal(taken.status, 409);
    const wrongMethod = await s.call('POST', `/carts/${cart.id}/place_order`, {
      body: {
        customer: { first_name: 'Ann', last_name: 'Lee', email: 'ann2@example.com' },
        billing_address: address,
        use_billing_address_for_shipping: true,
        payment_method_id: 999,
      },
    });
    assert.equal(wrongMethod.status, 409);
    assert.equal((await s.call('GET', '/orders?count=1')).json.total_count, ordersBefore);
    assert.equal(
      (await s.call('GET', '/customers?count=1')).json.total_count,
      customersBefore,
      'a refused order leaves no customer behind',
    );
    const byCheck = await s.call('POST', `/carts/${cart.id}/place_order`, {
      body: {
        customer: { first_name: 'Ann', last_name: 'Lee', email: 'ann3@example.com' },
        billing_address: address,
        shipping_address: { ...address, city: 'Austin' },
        payment_method_id: 1,
      },
    });
    assert.equal(byCheck.status, 200, byCheck.text);
    const order = (await s.call('GET', `/orders/${byCheck.json.order_id}?expand=payments`)).json;
    assert.equal(order.payments[0].payment_method_name, 'Send Check or Money Order');
    assert.notEqual(order.order_shipping_address_id, order.order_billing_address_id);
  });
});
