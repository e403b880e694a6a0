/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- replies are JSON checked by assertions */
// The console's webhook pages over HTTPS, as a browser uses them: subscribe, read the delivery log, send again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { csrfIn, form, FORM, type ConsoleSession } from '../auth/support/console-session.ts';
import { firstAdminSession } from '../support/first-admin-session.ts';
import { sqliteTarget } from '../support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { startReceiver, type Receiver } from './receiver.ts';

describe('webhooks in the admin console', () => {
  let receiver: Receiver;
  let s: StoreUnderTest;
  let session: ConsoleSession;
  let origin: string;
  before(async () => {
    receiver = await startReceiver();
    s = await startStoreUnderTest(await sqliteTarget(), { webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, pollMs: 100 } });
    origin = new URL(s.api).origin;
    session = await firstAdminSession(s);
  });
  after(async () => {
    await s?.close();
    await receiver?.close();
  });

  const page = (path: string) => s.call('GET', `${origin}${path}`, { headers: { cookie: session.cookie } });
  const submit = async (path: string, fields: Record<string, string>) => {
    const csrf = csrfIn((await page('/admin/webhooks')).text);
    return s.call('POST', `${origin}${path}`, {
      rawBody: form({ _csrf: csrf, ...fields }),
      headers: { 'content-type': FORM, cookie: session.cookie },
    });
  };

  test('an admin subscribes, sees the delivery in the log, and sends it again', async () => {
    const list = await page('/admin/webhooks');
    assert.equal(list.status, 200);
    assert.match(list.text, /<h1>Webhooks<\/h1>/);
    assert.match(list.text, /Test harness/, 'the app whose secret signs is offered');
    const appId = /<option value="([1-9]\d*)"/.exec(list.text)?.[1] ?? '';

    const refused = await submit('/admin/webhooks', {
      event_type: 'ProductCreated',
      url: 'http://hooks.example.test/',
      failure_type: 'Ignore',
      fallback_url: '',
      cache_length: 'NoCache',
      app: appId,
    });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /url: must use https/);
    assert.match(refused.text, /value="http:\/\/hooks.example.test\/"/, 'the form keeps what was typed');

    const saved = await submit('/admin/webhooks', {
      event_type: 'ProductCreated',
      url: `${receiver.origin}/console`,
      failure_type: 'Ignore',
      fallback_url: '',
      cache_length: 'NoCache',
      app: appId,
    });
    assert.equal(saved.status, 303);
    const api = await s.call('GET', '/webhooks?event_type=ProductCreated');
    assert.equal(api.json.total_count, 1);
    const subscription = api.json.webhooks[0];
    assert.equal(subscription.app_client_id, appId);

    await s.call('POST', '/products', { body: { item_name: 'Seen in the console' } });
    const [first] = await receiver.waitFor('/console', 1);
    let log = await page(`/admin/webhooks/${subscription.id}`);
    for (let i = 0; i < 50 && !/Delivered<\/span>/.test(log.text); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      log = await page(`/admin/webhooks/${subscription.id}`);
    }
    assert.match(log.text, /Delivery log/);
    assert.match(log.text, /<span class="badge active">Delivered<\/span>/);
    const deliveryId = /deliveries\/(\d+)\/resend/.exec(log.text)?.[1];
    assert.ok(deliveryId !== undefined);

    const again = await submit(`/admin/webhooks/${subscription.id}/deliveries/${deliveryId}/resend`, {});
    assert.equal(again.status, 303);
    const both = await receiver.waitFor('/console', 2);
    assert.equal(both[1]?.body, first?.body, 'the same event body');
    assert.notEqual(both[1]?.headers['x-ac-delivery'], first?.headers['x-ac-delivery']);
    const after = await page(String(again.headers.location));
    assert.match(after.text, /Queued again as delivery \d+/);
    assert.match(after.text, new RegExp(`again of ${deliveryId}`));

    assert.equal((await submit(`/admin/webhooks/${subscription.id}/deliveries/999999/resend`, {})).status, 404);
    assert.equal((await submit(`/admin/webhooks/${subscription.id}/delete`, {})).status, 303);
    assert.equal(
      (await s.call('GET', '/webhooks?event_type=ProductCreated', { headers: { 'cache-control': 'no-cache' } })).json.total_count,
      0,
    );
    assert.equal((await page(`/admin/webhooks/${subscription.id}`)).status, 404);
  });

  test('the pages need a signed-in admin, and forms need their CSRF token', async () => {
    const anonymous = await s.call('GET', `${origin}/admin/webhooks`, { anonymous: true });
    assert.equal(anonymous.status, 303);
    assert.match(String(anonymous.headers.location), /^\/admin\/sign-in/);
    const forged = await s.call('POST', `${origin}/admin/webhooks`, {
      rawBody: form({ _csrf: 'forged', event_type: 'NewOrder', url: 'https://hooks.example.test/' }),
      headers: { 'content-type': FORM, cookie: session.cookie },
    });
    assert.equal(forged.status, 403);
  });
});
