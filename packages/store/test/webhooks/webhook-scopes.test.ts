/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// The `webhooks` scope is worth what it says (issue 32 item 2): a token with only that scope cannot subscribe to
// events carrying customers or orders, nor to reply events that set prices or refuse other apps' writes; and a
// subscription whose reply hook keeps failing is suspended, with the console saying why.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { csrfIn, form, FORM, type ConsoleSession } from '../auth/support/console-session.ts';
import { firstAdminSession } from '../support/first-admin-session.ts';
import { SUSPEND_AFTER } from '../../src/webhooks/reply-events.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { issueTestToken } from '../support/test-token.ts';
import { startReceiver, type Receiver } from './receiver.ts';

for (const target of await testDatabaseTargets()) {
  describe(`webhook scopes and suspension on ${target.name}`, { skip: target.skip }, () => {
    let receiver: Receiver;
    let s: StoreUnderTest;
    let origin: string;
    let session: ConsoleSession;
    const tokens: Record<string, string> = {};
    before(async () => {
      receiver = await startReceiver();
      s = await startStoreUnderTest(target, {
        webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, replyLimitMs: 300, deliver: false },
      });
      origin = new URL(s.api).origin;
      const storeId = s.store.firstStart?.storeId ?? 1;
      for (const scopes of ['webhooks', 'webhooks,read_people', 'webhooks,read_catalog', 'webhooks,catalog', 'webhooks,read_orders']) {
        tokens[scopes] = await issueTestToken(s.store.app, storeId, scopes, `App with ${scopes}`);
      }
      session = await firstAdminSession(s);
    });
    after(async () => {
      await s?.close();
      await receiver?.close();
    });

    const subscribeAs = (scopes: string, event_type: string, url = `${receiver.origin}/hook`) =>
      s.call('POST', '/webhooks', { body: { event_type, url }, headers: { 'x-ac-auth-token': tokens[scopes] ?? '' } });

    test('a token with only the webhooks scope cannot subscribe to customers, orders, prices or product validation', async () => {
      assert.equal((await s.call('GET', '/customers', { headers: { 'x-ac-auth-token': tokens.webhooks ?? '' } })).status, 403);
      for (const event of [
        'CustomerCreated',
        'NewOrder',
        'GetPrice',
        'GetTax',
        'GetDiscount',
        'ValidateProduct',
        'ValidateCheckout',
        'ProductCreated',
      ]) {
        const reply = await subscribeAs('webhooks', event);
        assert.equal(reply.status, 403, `${event}: ${reply.text}`);
        assert.match(reply.json.details, new RegExp(`event_type: ${event} .* needs the \\w+ scope`));
      }
      assert.equal(
        (await s.call('GET', '/webhooks', { headers: { 'cache-control': 'no-cache' } })).json.total_count,
        0,
        'nothing was subscribed',
      );
    });

    test('an event needs the read scope of what it carries; a reply event the write scope of what it decides', async () => {
      assert.equal((await subscribeAs('webhooks,read_people', 'CustomerCreated')).status, 201);
      assert.equal((await subscribeAs('webhooks,read_orders', 'NewOrder')).status, 201);
      assert.equal((await subscribeAs('webhooks,read_catalog', 'ProductCreated')).status, 201);
      assert.equal((await subscribeAs('webhooks,read_catalog', 'GetPrice')).status, 403, 'reading the catalog does not set its prices');
      assert.equal((await subscribeAs('webhooks,read_catalog', 'ValidateProduct')).status, 403);
      const pricing = await subscribeAs('webhooks,catalog', 'GetPrice');
      assert.equal(pricing.status, 201, pricing.text);
      // Nor can a cheaper token turn its subscription into one, or take over a pricing one.
      const customers = await subscribeAs('webhooks,read_people', 'CustomerUpdated');
      const headers = { 'x-ac-auth-token': tokens['webhooks,read_people'] ?? '' };
      assert.equal((await s.call('PUT', `/webhooks/${customers.json.id}`, { body: { event_type: 'GetPrice' }, headers })).status, 403);
      assert.equal(
        (await s.call('PUT', `/webhooks/${pricing.json.id}`, { body: { url: `${receiver.origin}/mine` }, headers })).status,
        403,
      );
      assert.equal(
        (await s.call('GET', `/webhooks/${pricing.json.id}`, { headers: { 'cache-control': 'no-cache' } })).json.url,
        `${receiver.origin}/hook`,
      );
      // Each app's subscriptions are its own to delete; an admin removes them all in the console.
      const list = await s.call('GET', `${origin}/admin/webhooks`, { headers: { cookie: session.cookie } });
      for (const hook of (await s.call('GET', '/webhooks', { headers: { 'cache-control': 'no-cache' } })).json.webhooks as {
        id: number;
      }[]) {
        const deleted = await s.call('POST', `${origin}/admin/webhooks/${hook.id}/delete`, {
          rawBody: form({ _csrf: csrfIn(list.text) }),
          headers: { 'content-type': FORM, cookie: session.cookie },
        });
        assert.equal(deleted.status, 303, deleted.text);
      }
    });

    test('a reply hook whose app lost the write scope it needs is suspended and no longer asked', async () => {
      const storeId = s.store.firstStart?.storeId ?? 1;
      const token = await issueTestToken(s.store.app, storeId, 'webhooks,catalog', 'Narrowed app');
      receiver.answer('/refuses', { body: { validation_messages: ['not today'] } });
      const hook = await s.call('POST', '/webhooks', {
        body: { event_type: 'ValidateProduct', url: `${receiver.origin}/refuses` },
        headers: { 'x-ac-auth-token': token },
      });
      assert.equal(hook.status, 201, hook.text);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal(
        (await s.call('POST', '/products', { body: { item_name: 'Refused' } })).status,
        400,
        'the hook refuses writes while its app may',
      );
      // The app is left with reading the catalog only (a narrower grant, its old one revoked).
      await issueTestToken(s.store.app, storeId, 'webhooks,read_catalog', 'Narrowed app');
      const app = await s.store.app.storeAuth.db
        .selectFrom('api_apps')
        .select('id')
        .where('name', '=', 'Narrowed app')
        .executeTakeFirstOrThrow();
      await s.store.app.storeAuth.db
        .updateTable('api_tokens')
        .set({ revoked_at: new Date().toISOString() })
        .where('app_id', '=', app.id)
        .where('scopes', 'like', '%catalog%')
        .where('scopes', 'not like', '%read_catalog%')
        .execute();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const asked = receiver.received.filter((r) => r.path === '/refuses').length;
      const written = await s.call('POST', '/products', { body: { item_name: 'Written' } });
      assert.equal(written.status, 201, written.text);
      assert.equal(receiver.received.filter((r) => r.path === '/refuses').length, asked, 'the hook was not asked');
      const log = await s.call('GET', `${origin}/admin/webhooks/${hook.json.id}`, { headers: { cookie: session.cookie } });
      assert.match(log.text, /Suspended<\/strong>/);
      assert.match(log.text, /no longer holds the catalog scope ValidateProduct needs/);
      await s.call('DELETE', `/webhooks/${hook.json.id}`, { headers: { 'x-ac-auth-token': token } });
    });

    test(`a ValidateProduct hook that never answers stops failing other apps' writes after ${SUSPEND_AFTER} tries, and the console says why`, async () => {
      receiver.answer('/never', { delayMs: 5000 });
      const hook = await s.call('POST', '/webhooks', {
        body: { event_type: 'ValidateProduct', url: `${receiver.origin}/never`, failure_type: 'Error' },
      });
      assert.equal(hook.status, 201, hook.text);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      for (let i = 0; i < SUSPEND_AFTER; i += 1) {
        const refused = await s.call('POST', '/products', { body: { item_name: `Blocked ${i}` } });
        assert.equal(refused.status, 502, refused.text);
      }
      const started = Date.now();
      const written = await s.call('POST', '/products', { body: { item_name: 'Written again' } });
      assert.equal(written.status, 201, written.text);
      assert.ok(Date.now() - started < 300, 'the suspended hook is not asked');

      const log = await s.call('GET', `${origin}/admin/webhooks/${hook.json.id}`, { headers: { cookie: session.cookie } });
      assert.equal(log.status, 200);
      assert.match(log.text, /Suspended<\/strong>/);
      assert.match(log.text, new RegExp(`ValidateProduct failed ${SUSPEND_AFTER} times in a row, last: no answer within 0.3 s`));
      const list = await s.call('GET', `${origin}/admin/webhooks`, { headers: { cookie: session.cookie } });
      assert.match(list.text, /Suspended<\/span>/);

      // Resumed, it is asked again.
      const resumed = await s.call('POST', `${origin}/admin/webhooks/${hook.json.id}/resume`, {
        rawBody: form({ _csrf: csrfIn(log.text) }),
        headers: { 'content-type': FORM, cookie: session.cookie },
      });
      assert.equal(resumed.status, 303);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await s.call('POST', '/products', { body: { item_name: 'Blocked again' } })).status, 502);
      await s.call('DELETE', `/webhooks/${hook.json.id}`);
    });
  });
}
