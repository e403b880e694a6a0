/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// /api/v1/webhooks: the platform's subscription fields, its own scope, and targets checked as they are written.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sqliteTarget } from '../support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { issueTestToken } from '../support/test-token.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { describeOnEachDatabase } from '../support/each-database.ts';

await describeOnEachDatabase(
  'webhook subscriptions',
  (s) => {
    test("a subscription takes the platform's fields and answers with them", async () => {
      const body = {
        event_type: 'OrderPlaced',
        url: 'https://hooks.example.test/placed',
        failure_type: 'Fallback',
        store_id: 1,
        cache_length: 'Short',
        fallback_url: 'https://hooks.example.test/fallback',
      };
      const made = await s.call('POST', '/webhooks', { body });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(
        { ...made.json, id: undefined, created_at: undefined, updated_at: undefined, app_client_id: undefined },
        { ...body, id: undefined, created_at: undefined, updated_at: undefined, app_client_id: undefined },
      );
      assert.match(made.json.app_client_id, /^[1-9]\d*$/);
      const list = await s.call('GET', '/webhooks?event_type=OrderPlaced');
      assert.equal(list.json.total_count, 1);
      const changed = await s.call('PUT', `/webhooks/${made.json.id}`, { body: { url: 'https://hooks.example.test/placed2' } });
      assert.equal(changed.json.url, 'https://hooks.example.test/placed2');
      assert.equal((await s.call('DELETE', `/webhooks/${made.json.id}`)).status, 200);
      assert.equal((await s.call('GET', `/webhooks/${made.json.id}`)).status, 404);
    });

    test('bad subscriptions are 400 with the reason', async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ event_type: 'NoSuchEvent', url: 'https://hooks.example.test/' }, /event_type/],
        [{ event_type: 'toString', url: 'https://hooks.example.test/' }, /event_type/],
        [{ event_type: 'ProductCreated', url: 'http://hooks.example.test/' }, /url: must use https/],
        [{ event_type: 'ProductCreated', url: 'not a url' }, /url: must be an absolute URL/],
        [{ event_type: 'ProductCreated', url: 'https://10.1.2.3/hook' }, /url: .*not allowed/],
        [{ event_type: 'ProductCreated', url: 'https://[::ffff:192.168.1.1]/hook' }, /url: .*not allowed/],
        [{ event_type: 'ProductCreated', url: 'https://169.254.169.254/latest' }, /url: .*not allowed/],
        [{ event_type: 'ProductCreated', url: 'https://hooks.example.test/', failure_type: 'Fallback' }, /fallback_url: is required/],
        [
          { event_type: 'ProductCreated', url: 'https://hooks.example.test/', fallback_url: 'https://127.0.0.1/x' },
          /fallback_url: .*not allowed/,
        ],
        [{ event_type: 'ProductCreated', url: 'https://hooks.example.test/', failure_type: 'Explode' }, /failure_type/],
        [{ event_type: 'ProductCreated', url: 'https://hooks.example.test/', store_id: 99 }, /store_id/],
      ];
      for (const [body, reason] of cases) {
        const reply = await s.call('POST', '/webhooks', { body });
        assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${reply.text}`);
        assert.match(reply.json.details, reason);
      }
      // The signing app is always the caller's: an app_client_id in the body is ignored, as read-only fields are.
      const forged = await s.call('POST', '/webhooks', {
        body: { event_type: 'ProductCreated', url: 'https://hooks.example.test/', app_client_id: 'x' },
      });
      assert.equal(forged.status, 201, forged.text);
      assert.match(forged.json.app_client_id, /^[1-9]\d*$/);
      assert.equal(forged.json.failure_type, 'Ignore', 'the documented default is stored, not null');
      assert.equal(forged.json.cache_length, 'NoCache');
      const reforged = await s.call('PUT', `/webhooks/${forged.json.id}`, {
        body: { app_client_id: 'x', url: 'https://hooks.example.test/moved' },
      });
      assert.equal(reforged.status, 200, reforged.text);
      assert.equal(reforged.json.app_client_id, forged.json.app_client_id, 'a PUT cannot change the signing app either');
      assert.equal(reforged.json.url, 'https://hooks.example.test/moved', 'the rest of that body is stored');
      const plainLoopback = await s.call('POST', '/webhooks', { body: { event_type: 'ProductCreated', url: 'http://127.0.0.1:9/dev' } });
      assert.equal(plainLoopback.status, 400, 'loopback is refused too unless the operator allowed it');
      assert.match(plainLoopback.json.details, /STORE_WEBHOOK_ALLOWED_NETWORKS/, 'the refusal names the setting that allows it');
    });

    test('webhooks have their own scope', async () => {
      const storeId = s.store.firstStart?.storeId ?? 1;
      const catalogOnly = await issueTestToken(s.store.app, storeId, 'catalog orders', 'No webhooks');
      const reader = await issueTestToken(s.store.app, storeId, 'read_webhooks', 'Webhook reader');
      const writer = await issueTestToken(s.store.app, storeId, 'webhooks read_catalog', 'Webhook writer');
      // ProductCreated carries products: the webhooks scope alone does not subscribe to it (issue 32).
      const webhooksOnly = await issueTestToken(s.store.app, storeId, 'webhooks', 'Webhooks only');
      const body = { event_type: 'ProductCreated', url: 'https://hooks.example.test/scoped' };
      assert.equal((await s.call('GET', '/webhooks', { headers: { 'x-ac-auth-token': catalogOnly } })).status, 403);
      assert.equal((await s.call('GET', '/webhooks', { headers: { 'x-ac-auth-token': reader } })).status, 200);
      assert.equal((await s.call('POST', '/webhooks', { body, headers: { 'x-ac-auth-token': reader } })).status, 403);
      assert.equal((await s.call('POST', '/webhooks', { body, headers: { 'x-ac-auth-token': webhooksOnly } })).status, 403);
      assert.equal((await s.call('POST', '/webhooks', { body, headers: { 'x-ac-auth-token': writer } })).status, 201);
    });
  },
  { webhooks: { deliver: false } },
);

describe('webhook targets the operator has not allowed', () => {
  let receiver: Receiver;
  let s: StoreUnderTest;
  before(async () => {
    receiver = await startReceiver();
    // No allowed networks: loopback is out of bounds like any private range.
    s = await startStoreUnderTest(await sqliteTarget(), {
      webhooks: { ca: receiver.ca, pollMs: 100, retry: { firstDelayMs: 100, maxDelayMs: 100, windowMs: 60_000 } },
    });
  });
  after(async () => {
    await s?.close();
    await receiver?.close();
  });

  test('a name that resolves into a private range is refused when connecting, and nothing is sent', async () => {
    const made = await s.call('POST', '/webhooks', {
      body: { event_type: 'ProductCreated', url: `https://localhost:${receiver.port}/inside` },
    });
    assert.equal(made.status, 201, made.text);
    await s.call('POST', '/products', { body: { item_name: 'Never sent' } });
    const { openDatabase } = await import('@app/database');
    const database = await openDatabase<Record<string, Record<string, unknown>>>(s.databaseUrl);
    try {
      const deadline = Date.now() + 10_000;
      let row: Record<string, unknown> | undefined;
      while (Date.now() < deadline) {
        row = await database.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', made.json.id).executeTakeFirst();
        if (row !== undefined && Number(row.attempts) >= 2) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(String(row?.last_error), /not allowed/);
      assert.equal(row?.state, 'pending');
    } finally {
      await database.close();
    }
    assert.equal(receiver.received.length, 0);
  });
});
