/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call -- replies are JSON checked by assertions */
// A cart's events that expect a reply, answered by a real HTTPS receiver: GetPrice, GetDiscount and GetTax
// while its figures are computed (and stored on the cart and its order), ValidateCart and ValidateCheckout
// before it becomes an order; the time limit, failure_type and cache_length as for every reply event.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { sqliteTarget } from '../support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const address = { name: 'John Doe', address_line_1: '123 Test St', city: 'Beaumont', state: 'TX', postal_code: '77702', country: 'US' };
const card = { number: '4111 1111 1111 1111', name: 'John Doe', expiration_month: '12', expiration_year: '2099', cvv: '111' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const target of await testDatabaseTargets()) {
  describe(`cart events that expect a reply on ${target.name}`, { skip: target.skip }, () => {
    let receiver: Receiver;
    let s: StoreUnderTest;
    let bolt: { id: number };
    let express: string;
    let orderEmail = 0;
    before(async () => {
      receiver = await startReceiver();
      // A 1-second limit instead of the platform's 3, so the timeout cases run quickly.
      s = await startStoreUnderTest(target, {
        webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, replyLimitMs: 1000, deliver: false },
      });
      bolt = (await s.call('POST', '/products', { body: { item_name: 'Bolt', item_number: 'B-1', price: 2.5, weight: 0.25 } })).json;
      await s.call('POST', '/custom_shipping_methods', {
        body: { name: 'Express', is_enabled: true, markup_type: 'Flat', markup_amount: '12.50' },
      });
    });
    after(async () => {
      await s?.close();
      await receiver?.close();
    });
    beforeEach(async () => {
      const all = await s.call('GET', '/webhooks', { headers: { 'cache-control': 'no-cache' } });
      for (const hook of all.json.webhooks as { id: number }[]) await s.call('DELETE', `/webhooks/${hook.id}`);
      await pause(1100); // each instance re-reads the subscriptions within a second
    });

    const subscribe = async (event: string, path: string, extra: Record<string, unknown> = {}) => {
      const made = await s.call('POST', '/webhooks', { body: { event_type: event, url: `${receiver.origin}${path}`, ...extra } });
      assert.equal(made.status, 201, made.text);
      await pause(1100);
    };
    const asked = (path: string) => receiver.received.filter((r) => r.path === path);
    /** A cart with 4 bolts (10.00) shipped Express (12.50), to Beaumont TX. */
    const cart = async () => {
      const made = (await s.call('POST', '/carts', { body: {} })).json as { id: number };
      const filled = await s.call('POST', `/carts/${made.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 4 }] } });
      assert.equal(filled.status, 200, filled.text);
      const rates = await s.call('GET', `/carts/${made.id}/shipping?city=Beaumont&state=TX&postal_code=77701&country=US`);
      express = rates.json.rates.find((r: { description: string }) => r.description === 'Express').identifier;
      await s.call('PUT', `/carts/${made.id}/shipping`, { body: { identifier: express } });
      const estimated = await s.call('PUT', `/carts/${made.id}/shipping_estimation`, {
        body: { city: 'Beaumont', state_code: 'TX', postal_code: '77701', country_code: 'US' },
      });
      return { id: made.id, lineId: Number(filled.json.items[0].id), json: estimated.json };
    };
    const placeOrder = (cartId: number) => {
      orderEmail += 1;
      return s.call('POST', `/carts/${cartId}/place_order`, {
        body: {
          customer: { first_name: 'John', last_name: 'Doe', email: `buyer${orderEmail}@example.test` },
          billing_address: address,
          use_billing_address_for_shipping: true,
          credit_card: card,
          gift_message: 'Enjoy',
        },
      });
    };

    test('without a GetTax subscriber a cart has no tax; with one, its replies are the tax of the cart and of its order', async () => {
      const untaxed = await cart();
      assert.equal(untaxed.json.tax_total, 0);
      assert.equal(untaxed.json.grand_total, 22.5);

      const { id, lineId } = await cart();
      // A line of another cart, and text where a number belongs, count for nothing.
      receiver.answer('/tax', {
        body: {
          items: [
            { cart_item_id: lineId, tax_amount: 0.83 },
            { cart_item_id: 999999, tax_amount: 100 },
          ],
          shipping_tax_amount: 1.03,
          handling_tax_amount: 'lots',
        },
      });
      await subscribe('GetTax', '/tax');
      const calculated = await s.call('GET', `/carts/${id}/calculated`);
      assert.equal(calculated.status, 200, calculated.text);
      assert.equal(calculated.json.tax_total, 1.86);
      assert.equal(calculated.json.grand_total, 24.36);
      const question = asked('/tax').at(-1);
      assert.equal(question?.headers['x-ac-event'], 'GetTax');
      assert.match(String(question?.headers['x-ac-signature']), /^sha256=[0-9a-f]{64}$/);
      const body = question?.json as any;
      assert.equal(body.shipping_total, 12.5);
      assert.equal(body.handling_total, 0);
      assert.deepEqual(
        { ...body.items[0], origin_address: undefined },
        {
          cart_item_id: lineId,
          item_number: 'B-1',
          item_name: 'Bolt',
          manufacturer_item_number: null,
          price: 2.5,
          discounted_price: 2.5,
          quantity: 4,
          is_tax_exempt: false,
          tax_code: null,
          line_item_subtotal: 10,
          origin_address: undefined,
          destination_address: { city: 'Beaumont', state: 'TX', postal_code: '77701', country: 'US' },
        },
      );

      const placed = await placeOrder(id);
      assert.equal(placed.status, 200, placed.text);
      const order = (await s.call('GET', `/orders/${placed.json.order_id}`)).json;
      assert.equal(order.tax_total, 1.86);
      assert.equal(order.grand_total, 24.36);
    });

    test('GetPrice sets the price of the lines it knows; GetDiscount adds discounts and a shipping discount', async () => {
      receiver.answer('/price', {
        body: {
          prices: [
            { item_number: 'B-1', price: 2, cost: 1.1 },
            { item_number: 'OTHER', price: 0 },
          ],
        },
      });
      await subscribe('GetPrice', '/price');
      const { id, lineId } = await cart();
      const priced = await s.call('GET', `/carts/${id}/calculated`);
      assert.equal(priced.json.items[0].price, 2);
      assert.equal(priced.json.items[0].cost, 1.1);
      assert.equal(priced.json.subtotal, 8);
      assert.deepEqual(asked('/price').at(-1)?.json, {
        items: [{ item_number: 'B-1', quantity: 4, variant_ids: [], variant_inventory_id: null }],
        customer_type_id: null,
      });

      receiver.answer('/discount', {
        body: {
          discount: 1,
          cart_items: [
            { cart_item_id: lineId, discount_amount: 0.5 },
            { cart_item_id: 999999, discount_amount: 50 },
          ],
          shipping_discount: 5,
          add_items: [{ product_id: bolt.id, quantity: 1 }],
        },
      });
      await subscribe('GetDiscount', '/discount');
      const discounted = await s.call('GET', `/carts/${id}/calculated`);
      assert.equal(discounted.json.discount_total, 1.5);
      assert.equal(discounted.json.shipping_total, 12.5);
      assert.equal(discounted.json.discounted_shipping_total, 7.5);
      assert.equal(discounted.json.grand_total, 14);
      assert.equal(discounted.json.items.length, 1, 'add_items puts nothing in the cart');
      const question = asked('/discount').at(-1)?.json as any;
      assert.equal(question.cart_id, id);
      assert.equal(question.items[0].cart_item_id, lineId);
      assert.equal(question.items[0].price, 2, 'asked with the price GetPrice gave');
      assert.equal(question.total_weight, 1);
      assert.equal(question.shipping_total, 12.5);

      const placed = await placeOrder(id);
      assert.equal(placed.status, 200, placed.text);
      const order = (await s.call('GET', `/orders/${placed.json.order_id}`)).json;
      assert.deepEqual([order.subtotal, order.discount_total, order.discounted_shipping_total, order.grand_total], [8, 1.5, 7.5, 14]);
      const items = (await s.call('GET', `/orders/${placed.json.order_id}/items`)).json.order_items;
      assert.equal(items[0].price, 2);

      // A cart of a known customer is asked about with that customer's type.
      const wholesale = (await s.call('POST', '/customers', { body: { email: 'trade@example.test', customer_type_id: 2 } })).json;
      const theirs = (await s.call('POST', '/carts', { body: { customer_id: wholesale.id } })).json;
      assert.equal(
        (await s.call('POST', `/carts/${theirs.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 1 }] } })).status,
        200,
      );
      assert.equal((asked('/price').at(-1)?.json as any).customer_type_id, 2);
      assert.deepEqual(
        [(asked('/discount').at(-1)?.json as any).customer_type_id, (asked('/discount').at(-1)?.json as any).customer_type],
        [2, 'Wholesale'],
      );
    });

    test('failure_type Error: a cart change whose tax cannot be had is 502 and leaves the cart as it was', async () => {
      const { id, lineId } = await cart();
      receiver.answer('/tax-down', { delayMs: 1500 });
      await subscribe('GetTax', '/tax-down', { failure_type: 'Error' });
      const failed = await s.call('PUT', `/carts/${id}/items`, { body: { items: [{ cart_item_id: lineId, quantity: 9 }] } });
      assert.equal(failed.status, 502, failed.text);
      assert.match(failed.json.details, /GetTax webhook .* failed \(no answer within 1 s\)/);
      const added = await s.call('POST', `/carts/${id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 1 }] } });
      assert.equal(added.status, 502);
      const lines = (await s.call('GET', `/carts/${id}/items`, { headers: { 'cache-control': 'no-cache' } })).json.cart_items;
      assert.deepEqual(
        lines.map((line: { id: number; quantity: number }) => [line.id, line.quantity]),
        [[lineId, 4]],
      );
      const orders = (await s.call('GET', '/orders', { headers: { 'cache-control': 'no-cache' } })).json.total_count;
      assert.equal((await placeOrder(id)).status, 502);
      assert.equal(
        (await s.call('GET', '/orders', { headers: { 'cache-control': 'no-cache' } })).json.total_count,
        orders,
        'no order without its tax',
      );
    });

    test('failure_type Ignore goes on without the reply; Fallback asks the fallback URL', async () => {
      const { id } = await cart();
      receiver.answer('/tax-slow', { delayMs: 1500, body: { shipping_tax_amount: 9 } });
      await subscribe('GetTax', '/tax-slow', { failure_type: 'Ignore' });
      const started = Date.now();
      const ignored = await s.call('GET', `/carts/${id}/calculated`);
      assert.equal(ignored.status, 200);
      assert.equal(ignored.json.tax_total, 0);
      assert.ok(Date.now() - started < 1450, 'the request did not wait past the limit');

      await s.call(
        'DELETE',
        `/webhooks/${(await s.call('GET', '/webhooks?event_type=GetTax', { headers: { 'cache-control': 'no-cache' } })).json.webhooks[0].id}`,
      );
      receiver.answer('/tax-fallback', { body: { shipping_tax_amount: 2 } });
      await subscribe('GetTax', '/tax-slow', { failure_type: 'Fallback', fallback_url: `${receiver.origin}/tax-fallback` });
      const fallback = await s.call('GET', `/carts/${id}/calculated`);
      assert.equal(fallback.json.tax_total, 2);
    });

    test('cache_length Short asks a cart question once until the cart changes; NoCache asks every time', async () => {
      const { id, lineId } = await cart();
      receiver.answer('/tax-cached', { body: { shipping_tax_amount: 1 } });
      await subscribe('GetTax', '/tax-cached', { cache_length: 'Short' });
      for (let i = 0; i < 3; i++) assert.equal((await s.call('GET', `/carts/${id}/calculated`)).json.tax_total, 1);
      assert.equal(asked('/tax-cached').length, 1);
      await s.call('PUT', `/carts/${id}/items`, { body: { items: [{ cart_item_id: lineId, quantity: 5 }] } });
      assert.equal(asked('/tax-cached').length, 2, 'another cart is another question');

      receiver.answer('/tax-uncached', { body: { shipping_tax_amount: 1 } });
      await subscribe('GetTax', '/tax-uncached', { cache_length: 'NoCache' });
      for (let i = 0; i < 2; i++) await s.call('GET', `/carts/${id}/calculated`);
      assert.equal(asked('/tax-uncached').length, 2);
    });

    test('ValidateCart and ValidateCheckout refuse the order with their messages; cart changes are not refused', async () => {
      receiver.answer('/validate-cart', { body: { validation_messages: ['At most 3 bolts per order'] } });
      receiver.answer('/validate-checkout', { body: { validation_messages: ['No orders to Beaumont'] } });
      await subscribe('ValidateCart', '/validate-cart');
      await subscribe('ValidateCheckout', '/validate-checkout');
      // cart() adds 4 bolts and asserts 200: the draft is not checked, only the order it would become.
      const { id } = await cart();
      assert.equal(asked('/validate-cart').length, 0);
      const orders = (await s.call('GET', '/orders', { headers: { 'cache-control': 'no-cache' } })).json.total_count;
      const refused = await placeOrder(id);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.details, 'At most 3 bolts per order; No orders to Beaumont');
      assert.equal((await s.call('GET', '/orders', { headers: { 'cache-control': 'no-cache' } })).json.total_count, orders);
      assert.equal((await s.call('GET', `/carts/${id}`, { headers: { 'cache-control': 'no-cache' } })).json.associated_order_id, null);

      const cartQuestion = asked('/validate-cart').at(-1)?.json as any;
      assert.equal(cartQuestion.cart.id, id);
      assert.equal(cartQuestion.cart.items[0].quantity, 4);
      assert.equal(cartQuestion.cart.grand_total, 22.5);
      const checkout = asked('/validate-checkout').at(-1)?.json as any;
      assert.equal(checkout.customer.email, `buyer${orderEmail}@example.test`);
      assert.equal(checkout.billing_address.city, 'Beaumont');
      assert.deepEqual(checkout.shipping_address, checkout.billing_address);
      assert.deepEqual(checkout.payment_methods, [{ name: 'Credit Card', amount: 22.5 }]);
      assert.deepEqual(checkout.shipping_methods, ['Express']);
      assert.equal(checkout.is_gift, true);

      receiver.answer('/validate-cart', { body: { validation_messages: [] } });
      receiver.answer('/validate-checkout', { body: {} });
      const placed = await placeOrder(id);
      assert.equal(placed.status, 200, placed.text);
    });
  });
}

describe("a cart question waits the platform's 3 seconds by default", () => {
  let receiver: Receiver;
  let s: StoreUnderTest;
  before(async () => {
    receiver = await startReceiver();
    s = await startStoreUnderTest(await sqliteTarget(), {
      webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, deliver: false },
    });
  });
  after(async () => {
    await s?.close();
    await receiver?.close();
  });

  test('an answer after 2 s counts; one after 4 s does not, and the request goes on at 3 s', async () => {
    const bolt = (await s.call('POST', '/products', { body: { item_name: 'Bolt', item_number: 'B-1', price: 2.5 } })).json;
    const cart = (await s.call('POST', '/carts', { body: {} })).json;
    assert.equal(
      (await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 1 }] } })).status,
      200,
    );
    receiver.answer(
      '/tax',
      { delayMs: 2000, body: { shipping_tax_amount: 0, handling_tax_amount: 0.2 } },
      { delayMs: 4000, body: { handling_tax_amount: 9 } },
    );
    assert.equal((await s.call('POST', '/webhooks', { body: { event_type: 'GetTax', url: `${receiver.origin}/tax` } })).status, 201);
    await pause(1100);
    assert.equal((await s.call('GET', `/carts/${cart.id}/calculated`)).json.tax_total, 0.2);
    const started = Date.now();
    const late = await s.call('GET', `/carts/${cart.id}/calculated`);
    const waited = Date.now() - started;
    // Had it waited for the answer, the tax would be 9.
    assert.equal(late.json.tax_total, 0, 'a late answer is ignored (failure_type Ignore)');
    assert.ok(waited >= 2900, `waited ${waited} ms, the platform's limit`);
  });
});
