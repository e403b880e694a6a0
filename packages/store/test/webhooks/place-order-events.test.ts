/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- replies are JSON checked by assertions */
// Placing a cart's order sends the events the platform ties to it (NewOrder, NewValidOrder, OrderPlaced, and
// CustomerCreated for a customer it makes), queued in the order's own transaction and delivered to a real
// HTTPS receiver; a refused order queues nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { testDatabaseTargets } from '@app/database/testing';
import type { StoreDatabase, StoreSchema } from '../../src/db/schema.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const address = { name: 'John Doe', address_line_1: '123 Test St', city: 'Beaumont', state: 'TX', postal_code: '77702', country: 'US' };
const card = { number: '4111 1111 1111 1111', name: 'John Doe', expiration_month: '12', expiration_year: '2099', cvv: '111' };
const events = ['NewOrder', 'NewValidOrder', 'OrderPlaced', 'CustomerCreated', 'OrderUpdated'];

for (const target of await testDatabaseTargets()) {
  describe(`events of a placed order on ${target.name}`, { skip: target.skip }, () => {
    let receiver: Receiver;
    let s: StoreUnderTest;
    let database: StoreDatabase;
    let bolt: { id: number };
    before(async () => {
      receiver = await startReceiver();
      s = await startStoreUnderTest(target, { webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, pollMs: 100 } });
      database = await openDatabase<StoreSchema>(s.databaseUrl);
      bolt = (await s.call('POST', '/products', { body: { item_name: 'Bolt', item_number: 'B-1', price: 2.5 } })).json;
      for (const event of events)
        assert.equal((await s.call('POST', '/webhooks', { body: { event_type: event, url: `${receiver.origin}/${event}` } })).status, 201);
    });
    after(async () => {
      await database?.close();
      await s?.close();
      await receiver?.close();
    });

    const cartWithBolts = async () => {
      const cart = (await s.call('POST', '/carts', { body: {} })).json as { id: number };
      assert.equal(
        (await s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: bolt.id, quantity: 2 }] } })).status,
        200,
      );
      return cart;
    };
    const outbox = async () =>
      Number(
        (
          await database.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('a placed order sends NewOrder, NewValidOrder and OrderPlaced with the order as the API answers it, and CustomerCreated', async () => {
      const cart = await cartWithBolts();
      const placed = await s.call('POST', `/carts/${cart.id}/place_order`, {
        body: {
          customer: { first_name: 'John', last_name: 'Doe', email: 'jdoe@example.test' },
          billing_address: address,
          use_billing_address_for_shipping: true,
          credit_card: card,
        },
      });
      assert.equal(placed.status, 200, placed.text);
      const order = (await s.call('GET', `/orders/${placed.json.order_id}`)).json;
      assert.equal(order.grand_total, 5);
      for (const event of ['NewOrder', 'NewValidOrder', 'OrderPlaced']) {
        const [got] = await receiver.waitFor(`/${event}`, 1);
        assert.deepEqual(got?.json, { order }, event);
        assert.equal(got?.headers['x-ac-event'], event);
      }
      const [created] = await receiver.waitFor('/CustomerCreated', 1);
      const customer = (await s.call('GET', `/customers/${order.customer_id}`)).json;
      assert.deepEqual(created?.json, { customer });
      assert.equal(customer.email, 'jdoe@example.test');

      // The same customer again, by id: a second order, no second CustomerCreated.
      const again = await cartWithBolts();
      const second = await s.call('POST', `/carts/${again.id}/place_order`, {
        body: { customer: { id: customer.id }, billing_address: address, use_billing_address_for_shipping: true, payment_method_id: 1 },
      });
      assert.equal(second.status, 200, second.text);
      const [, got] = await receiver.waitFor('/OrderPlaced', 2);
      assert.equal((got?.json as { order: { id: number } }).order.id, second.json.order_id);
      await receiver.waitFor('/NewOrder', 2);
      assert.equal(receiver.received.filter((r) => r.path === '/CustomerCreated').length, 1);
      assert.equal(receiver.received.filter((r) => r.path === '/OrderUpdated').length, 0, 'placing is not an update');
    });

    test('a refused order queues no event; an order made through POST /orders is new but not placed', async () => {
      const before = await outbox();
      const cart = await cartWithBolts();
      const refused = await s.call('POST', `/carts/${cart.id}/place_order`, {
        body: {
          customer: { first_name: 'Jane', last_name: 'Roe', email: 'jroe@example.test' },
          billing_address: address,
          use_billing_address_for_shipping: true,
          credit_card: { ...card, number: '4111 1111 1111 1112' },
        },
      });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(await outbox(), before, 'nothing queued by a write that did not happen');
      assert.equal((await s.call('GET', '/customers?email=jroe@example.test')).json.total_count, 0);

      const placedSoFar = receiver.received.filter((r) => r.path === '/OrderPlaced').length;
      const direct = await s.call('POST', '/orders', { body: { order_status_id: 1 } });
      assert.equal(direct.status, 201, direct.text);
      const newOrders = await receiver.waitFor('/NewOrder', 3);
      assert.equal((newOrders.at(-1)?.json as { order: { id: number } }).order.id, direct.json.id);
      assert.equal(receiver.received.filter((r) => r.path === '/OrderPlaced').length, placedSoFar);
    });
  });
}
