/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- replies are JSON checked by assertions */
// Webhook delivery to a real HTTPS receiver on loopback: signed, retried with backoff, the fallback URL,
// in order per subscription, and never to a network the operator did not allow.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { secretOf } from '../../src/auth/apps.ts';
import type { StoreDatabase, StoreSchema } from '../../src/db/schema.ts';
import { verifyDelivery } from '../../src/webhooks/signature.ts';
import { sqliteTarget } from '../support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { issueTestToken } from '../support/test-token.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/** Fast retries so a test sees several attempts within seconds; the real schedule spans 24 hours. */
const quickRetry = { firstDelayMs: 100, maxDelayMs: 300, windowMs: 30_000 };

describe('webhook delivery', () => {
  let receiver: Receiver;
  let s: StoreUnderTest;
  let database: StoreDatabase;
  before(async () => {
    receiver = await startReceiver();
    s = await startStoreUnderTest(await sqliteTarget(), {
      webhooks: { allowedNetworks: ['127.0.0.0/8', '::1'], ca: receiver.ca, retry: quickRetry, pollMs: 100, timeoutMs: 1500 },
    });
    database = await openDatabase<StoreSchema>(s.databaseUrl);
  });
  after(async () => {
    await database?.close();
    await s?.close();
    await receiver?.close();
  });

  const subscribe = async (event: string, path: string, extra: Record<string, unknown> = {}) => {
    const made = await s.call('POST', '/webhooks', { body: { event_type: event, url: `${receiver.origin}${path}`, ...extra } });
    assert.equal(made.status, 201, made.text);
    return made.json;
  };
  const deliveriesOf = (subscription: number) =>
    database.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', subscription).orderBy('id').execute();
  const eventually = async (check: () => Promise<boolean>, what: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) assert.fail(`${what} did not happen within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  test('a created product arrives signed with the app secret, its timestamp in its own header', async () => {
    const subscription = await subscribe('ProductCreated', '/signed');
    assert.match(subscription.app_client_id, /^[1-9]\d*$/);
    const product = await s.call('POST', '/products', { body: { item_name: 'Signed bolt', price: 3 } });
    const [got] = await receiver.waitFor('/signed', 1);
    assert.ok(got !== undefined);
    assert.deepEqual(got.json, { product: product.json });
    assert.equal(got.headers['x-ac-event'], 'ProductCreated');
    assert.match(String(got.headers['content-type']), /^application\/json/);
    const secret = await secretOf(s.store.app.storeAuth, subscription.app_client_id);
    assert.ok(secret !== undefined);
    const headers = { signature: got.headers['x-ac-signature'] as string, timestamp: got.headers['x-ac-timestamp'] as string };
    const now = Math.floor(Date.now() / 1000);
    assert.equal(verifyDelivery(secret, headers, got.body, now), true);
    // A changed body, another secret or an old timestamp does not verify.
    assert.equal(verifyDelivery(secret, headers, got.body.replace('Signed', 'Forged'), now), false);
    assert.equal(verifyDelivery(`${secret}x`, headers, got.body, now), false);
    assert.equal(verifyDelivery(secret, headers, got.body, now + 3600), false);
    await eventually(async () => (await deliveriesOf(subscription.id))[0]?.state === 'delivered', 'marking the delivery');
  });

  test('a subscription whose app lost the scope its event needs is suspended, not delivered to, and says why', async () => {
    const storeId = s.store.firstStart?.storeId ?? 1;
    const token = await issueTestToken(s.store.app, storeId, 'webhooks,read_catalog', 'Shrinking app');
    const made = await s.call('POST', '/webhooks', {
      body: { event_type: 'ProductCreated', url: `${receiver.origin}/shrinking` },
      headers: { 'x-ac-auth-token': token },
    });
    assert.equal(made.status, 201, made.text);
    await s.call('POST', '/products', { body: { item_name: 'Seen bolt' } });
    await receiver.waitFor('/shrinking', 1);
    // The app's grant is revoked (as the console's Revoke does); its scopes are read again within a second.
    const app = await database.db.selectFrom('api_apps').select('id').where('name', '=', 'Shrinking app').executeTakeFirstOrThrow();
    await database.db.updateTable('api_tokens').set({ revoked_at: new Date().toISOString() }).where('app_id', '=', app.id).execute();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await s.call('POST', '/products', { body: { item_name: 'Unseen bolt' } });
    await eventually(
      async () =>
        (await database.db.selectFrom('webhooks').select('suspended_reason').where('id', '=', made.json.id).executeTakeFirstOrThrow())
          .suspended_reason !== null,
      'suspending it',
    );
    const hook = await database.db
      .selectFrom('webhooks')
      .select('suspended_reason')
      .where('id', '=', made.json.id)
      .executeTakeFirstOrThrow();
    assert.match(String(hook.suspended_reason), /no longer holds the read_webhooks and read_catalog scopes ProductCreated needs/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.received.filter((r) => r.path === '/shrinking').length, 1, 'nothing more was sent');
    assert.deepEqual(
      (await deliveriesOf(made.json.id)).map((d) => d.state),
      ['delivered', 'pending'],
    );
  });

  test('answers of 500 are retried until one succeeds', async () => {
    receiver.answer('/flaky', { status: 500 }, { status: 503 }, { status: 200 });
    const subscription = await subscribe('ProductCreated', '/flaky');
    await s.call('POST', '/products', { body: { item_name: 'Flaky bolt' } });
    const got = await receiver.waitFor('/flaky', 3);
    assert.equal(new Set(got.map((r) => r.body)).size, 1);
    await eventually(async () => (await deliveriesOf(subscription.id))[0]?.state === 'delivered', 'delivery after retries');
    const [row] = await deliveriesOf(subscription.id);
    assert.equal(Number(row?.attempts), 3);
    assert.equal(Number(row?.last_status), 200);
  });

  test('a receiver that does not answer in time is tried again', async () => {
    receiver.answer('/slow', { delayMs: 3000 }, { status: 200 });
    const subscription = await subscribe('ProductCreated', '/slow');
    await s.call('POST', '/products', { body: { item_name: 'Slow bolt' } });
    await receiver.waitFor('/slow', 2);
    await eventually(async () => (await deliveriesOf(subscription.id))[0]?.state === 'delivered', 'delivery after a timeout');
    const [row] = await deliveriesOf(subscription.id);
    assert.equal(Number(row?.attempts), 2);
  });

  test('failure_type Fallback sends to the fallback URL when the URL fails', async () => {
    receiver.answer('/broken', { status: 500 });
    const subscription = await subscribe('ProductCreated', '/broken', {
      failure_type: 'Fallback',
      fallback_url: `${receiver.origin}/fallback`,
    });
    const product = await s.call('POST', '/products', { body: { item_name: 'Fallback bolt' } });
    const [got] = await receiver.waitFor('/fallback', 1);
    assert.deepEqual(got?.json, { product: product.json });
    await eventually(async () => (await deliveriesOf(subscription.id))[0]?.delivered_to === 'fallback_url', 'delivery to the fallback');
  });

  test("one subscription's events arrive in the order they were written, even when the first needs retries", async () => {
    receiver.answer('/ordered', { status: 500 }, { status: 500 }, { status: 200 });
    await subscribe('ProductUpdated', '/ordered');
    const product = await s.call('POST', '/products', { body: { item_name: 'Counter', sort_order: 0 } });
    for (let i = 1; i <= 6; i++) await s.call('PUT', `/products/${product.json.id}`, { body: { sort_order: i } });
    const got = await receiver.waitFor('/ordered', 8);
    const order = got.map((r: any) => r.json.product.sort_order as number).filter((n, i, all) => i === 0 || all[i - 1] !== n);
    assert.deepEqual(order, [1, 2, 3, 4, 5, 6]);
  });

  test('an event that fails for its whole retry window is given up, and later ones still go', async () => {
    // A store of its own whose retry window is short enough to watch it close.
    const short = await startStoreUnderTest(await sqliteTarget(), {
      webhooks: {
        allowedNetworks: ['127.0.0.0/8'],
        ca: receiver.ca,
        retry: { ...quickRetry, windowMs: 1500 },
        pollMs: 100,
        timeoutMs: 700,
      },
    });
    const shortDatabase = await openDatabase<StoreSchema>(short.databaseUrl);
    try {
      receiver.answer('/down', { status: 500 });
      const made = await short.call('POST', '/webhooks', { body: { event_type: 'CustomerCreated', url: `${receiver.origin}/down` } });
      const rows = () =>
        shortDatabase.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', made.json.id).orderBy('id').execute();
      await short.call('POST', '/customers', { body: { email: 'first@example.test' } });
      await eventually(async () => (await rows())[0]?.state === 'failed', 'giving up');
      const [failed] = await rows();
      assert.ok(Number(failed?.attempts) >= 3, `attempts: ${String(failed?.attempts)}`);
      assert.equal(failed?.last_error, 'HTTP 500');
      receiver.answer('/down', { status: 200 });
      await short.call('POST', '/customers', { body: { email: 'second@example.test' } });
      await eventually(async () => (await rows())[1]?.state === 'delivered', 'the next event');
    } finally {
      await shortDatabase.close();
      await short.close();
    }
  });

  test('order status changes send the status events with the old and new status', async () => {
    const open = await s.call('POST', '/order_statuses', { body: { name: 'Open', is_open: true } });
    const shipped = await s.call('POST', '/order_statuses', { body: { name: 'Shipped', is_shipped: true } });
    const cancelled = await s.call('POST', '/order_statuses', { body: { name: 'Cancelled', is_cancelled: true } });
    for (const event of ['NewOrder', 'NewValidOrder', 'OrderStatusChanged', 'OrderShipped', 'OrderCanceled'])
      await subscribe(event, `/orders/${event}`);
    const valid = await s.call('POST', '/orders', { body: { order_status_id: open.json.id } });
    await s.call('POST', '/orders', { body: { order_status_id: cancelled.json.id } });
    await s.call('PUT', `/orders/${valid.json.id}`, { body: { order_status_id: shipped.json.id } });
    const [changed] = await receiver.waitFor('/orders/OrderStatusChanged', 1);
    assert.deepEqual((changed?.json as any).old_status, open.json);
    assert.deepEqual((changed?.json as any).new_status, shipped.json);
    assert.equal((await receiver.waitFor('/orders/NewOrder', 2)).length, 2);
    const validOnes = await receiver.waitFor('/orders/NewValidOrder', 1);
    assert.equal((validOnes[0]?.json as any).order.id, valid.json.id);
    await receiver.waitFor('/orders/OrderShipped', 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.received.filter((r) => r.path === '/orders/NewValidOrder').length, 1);
    assert.equal(receiver.received.filter((r) => r.path === '/orders/OrderCanceled').length, 0);
  });

  test('an email change sends CustomerEmailUpdated with both addresses; the tax id never leaves', async () => {
    await subscribe('CustomerEmailUpdated', '/email');
    const customer = await s.call('POST', '/customers', { body: { email: 'old@example.test', tax_exemption_number: '12-3456789' } });
    await s.call('PUT', `/customers/${customer.json.id}`, { body: { first_name: 'Ada' } });
    await s.call('PUT', `/customers/${customer.json.id}`, { body: { email: 'new@example.test' } });
    const [got] = await receiver.waitFor('/email', 1);
    const body = got?.json as any;
    assert.equal(body.old_email, 'old@example.test');
    assert.equal(body.new_email, 'new@example.test');
    assert.equal(body.customer.first_name, 'Ada');
    assert.equal('tax_exemption_number' in body.customer, false);
    assert.doesNotMatch(got?.body ?? '', /tax_exemption_number/);
  });
});
