/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// Webhooks integrators can verify and operate (issue 37 item 1): every delivery carries the Standard Webhooks headers
// beside X-AC-Signature, verified here with the `standardwebhooks` library; secrets rotate with an overlap the admin
// chooses; the console lists each attempt with its status, latency and the answer's first bytes, resends, and sends
// a test event.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { Webhook } from 'standardwebhooks';
import { csrfIn, form, FORM, type ConsoleSession } from '../auth/support/console-session.ts';
import { firstAdminSession } from '../support/first-admin-session.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { issueTestToken } from '../support/test-token.ts';
import { startReceiver, type Received, type Receiver } from './receiver.ts';

const standardHeaders = (got: Received) => ({
  'webhook-id': String(got.headers['webhook-id']),
  'webhook-timestamp': String(got.headers['webhook-timestamp']),
  'webhook-signature': String(got.headers['webhook-signature']),
});
const verifies = (secret: string, got: Received): boolean => {
  try {
    new Webhook(secret).verify(got.body, standardHeaders(got));
    return true;
  } catch {
    return false;
  }
};

for (const target of await testDatabaseTargets()) {
  describe(`Standard Webhooks on ${target.name}`, { skip: target.skip }, () => {
    let receiver: Receiver;
    let s: StoreUnderTest;
    let origin: string;
    let session: ConsoleSession;
    let token: string;
    let otherToken: string;
    before(async () => {
      receiver = await startReceiver();
      s = await startStoreUnderTest(target, {
        webhooks: {
          allowedNetworks: ['127.0.0.0/8'],
          ca: receiver.ca,
          pollMs: 100,
          timeoutMs: 2000,
          retry: { firstDelayMs: 100, maxDelayMs: 200, windowMs: 60_000 },
        },
      });
      origin = new URL(s.api).origin;
      const storeId = s.store.firstStart?.storeId ?? 1;
      token = await issueTestToken(s.store.app, storeId, 'webhooks,read_catalog,catalog', 'Integrator');
      otherToken = await issueTestToken(s.store.app, storeId, 'webhooks,read_catalog', 'Someone else');
      session = await firstAdminSession(s);
    });
    after(async () => {
      await s?.close();
      await receiver?.close();
    });
    const as = (who: string) => ({ 'x-ac-auth-token': who });
    const subscribe = async (path: string) => {
      const made = await s.call('POST', '/webhooks', {
        body: { event_type: 'ProductCreated', url: `${receiver.origin}${path}` },
        headers: as(token),
      });
      assert.equal(made.status, 201, made.text);
      return made.json as { id: number };
    };
    const secretOf = async (id: number) => {
      const reply = await s.call('GET', `/webhooks/${id}/signing_secret`, { headers: as(token) });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.headers['cache-control'], 'no-store');
      return reply.json as { secret: string; previous_secret_expires_at: string | null };
    };

    test('every delivery verifies with the standardwebhooks library, and still carries X-AC-Signature', async () => {
      const hook = await subscribe('/standard');
      const { secret, previous_secret_expires_at } = await secretOf(hook.id);
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(previous_secret_expires_at, null);
      const product = await s.call('POST', '/products', { body: { item_name: 'Verified bolt' } });
      const [got] = await receiver.waitFor('/standard', 1);
      assert.ok(got !== undefined);
      assert.deepEqual(new Webhook(secret).verify(got.body, standardHeaders(got)), { product: product.json });
      assert.equal(got.headers['webhook-id'], got.headers['x-ac-delivery'], 'one id per message, the same as X-AC-Delivery');
      assert.equal(got.headers['webhook-timestamp'], got.headers['x-ac-timestamp']);
      assert.match(String(got.headers['x-ac-signature']), /^sha256=[0-9a-f]{64}$/);
      // A changed body or another subscription's secret does not verify.
      assert.equal(verifies(secret, { ...got, body: got.body.replace('Verified', 'Forged') }), false);
      const other = await subscribe('/other');
      assert.notEqual((await secretOf(other.id)).secret, secret);
      assert.equal(verifies((await secretOf(other.id)).secret, got), false);
      await s.call('DELETE', `/webhooks/${other.id}`, { headers: as(token) });
    });

    test('only the app that made a subscription reads or rotates its secret', async () => {
      const hook = await subscribe('/private');
      assert.equal((await s.call('GET', `/webhooks/${hook.id}/signing_secret`, { headers: as(otherToken) })).status, 403);
      assert.equal((await s.call('POST', `/webhooks/${hook.id}/signing_secret/rotate`, { body: {}, headers: as(otherToken) })).status, 403);
      assert.equal((await s.call('GET', '/webhooks/999999/signing_secret', { headers: as(token) })).status, 404);
      assert.equal(
        (await s.call('POST', `/webhooks/${hook.id}/signing_secret/rotate`, { body: { overlap_seconds: -1 }, headers: as(token) })).status,
        400,
      );
      assert.equal(
        (await s.call('POST', `/webhooks/${hook.id}/signing_secret/rotate`, { body: { overlap_seconds: 8 * 86400 }, headers: as(token) }))
          .status,
        400,
      );
    });

    test('a rotation keeps the old secret signing for the overlap chosen; without overlap it stops at once', async () => {
      const hook = await subscribe('/rotating');
      const old = (await secretOf(hook.id)).secret;
      const rotated = await s.call('POST', `/webhooks/${hook.id}/signing_secret/rotate`, {
        body: { overlap_seconds: 3600 },
        headers: as(token),
      });
      assert.equal(rotated.status, 200, rotated.text);
      const fresh = rotated.json.secret as string;
      assert.notEqual(fresh, old);
      assert.ok(Date.parse(rotated.json.previous_secret_expires_at) > Date.now() + 3500_000);
      await s.call('POST', '/products', { body: { item_name: 'Overlap bolt' } });
      const [during] = await receiver.waitFor('/rotating', 1);
      assert.ok(during !== undefined);
      assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2, 'two signatures during the overlap');
      assert.ok(verifies(old, during) && verifies(fresh, during), 'both secrets verify during the overlap');
      const again = await s.call('POST', `/webhooks/${hook.id}/signing_secret/rotate`, {
        body: { overlap_seconds: 0 },
        headers: as(token),
      });
      assert.equal(again.json.previous_secret_expires_at, null);
      await s.call('POST', '/products', { body: { item_name: 'After bolt' } });
      const got = await receiver.waitFor('/rotating', 2);
      const last = got[1];
      assert.ok(last !== undefined);
      assert.equal(verifies(again.json.secret, last), true);
      assert.equal(verifies(fresh, last), false, 'the replaced secret no longer verifies');
      assert.equal(verifies(old, last), false);
    });

    test('the console shows every attempt (status, latency, first bytes of the answer), sends a test event, resends, and rotates', async () => {
      receiver.answer('/flaky', { status: 503, body: { error: 'busy <now>' } }, { status: 200, body: { ok: 'thanks' } });
      const hook = await subscribe('/flaky');
      await s.call('POST', '/products', { body: { item_name: 'Console bolt' } });
      await receiver.waitFor('/flaky', 2);
      const cookie = { cookie: session.cookie };
      const page = async () => {
        for (let i = 0; i < 100; i += 1) {
          const reply = await s.call('GET', `${origin}/admin/webhooks/${hook.id}`, { headers: cookie });
          if (reply.text.includes('badge active">Delivered')) return reply;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.fail('the delivery was not marked delivered');
      };
      const log = await page();
      assert.match(log.text, /2 attempts/);
      assert.match(log.text, /HTTP 503, \d+ ms, HTTP 503/);
      assert.match(log.text, /{&quot;error&quot;:&quot;busy &lt;now&gt;&quot;}/, 'the answer, escaped');
      assert.match(log.text, /HTTP 200, \d+ ms<br><span class="muted">answer<\/span> <code>{&quot;ok&quot;:&quot;thanks&quot;}/);
      const { secret } = await secretOf(hook.id);
      assert.ok(log.text.includes(secret), 'the console shows the signing secret');

      const tested = await s.call('POST', `${origin}/admin/webhooks/${hook.id}/test`, {
        rawBody: form({ _csrf: csrfIn(log.text) }),
        headers: { 'content-type': FORM, ...cookie },
      });
      assert.equal(tested.status, 303);
      const [, , testEvent] = await receiver.waitFor('/flaky', 3);
      assert.ok(testEvent !== undefined);
      assert.equal((testEvent.json as { test: boolean }).test, true);
      assert.equal(verifies(secret, testEvent), true);

      const resent = await s.call(
        'POST',
        `${origin}/admin/webhooks/${hook.id}/deliveries/${String(testEvent.headers['x-ac-delivery'])}/resend`,
        {
          rawBody: form({ _csrf: csrfIn(log.text) }),
          headers: { 'content-type': FORM, ...cookie },
        },
      );
      assert.equal(resent.status, 303);
      const [, , , again] = await receiver.waitFor('/flaky', 4);
      assert.equal(again?.body, testEvent.body);

      const rotated = await s.call('POST', `${origin}/admin/webhooks/${hook.id}/rotate`, {
        rawBody: form({ _csrf: csrfIn(log.text), overlap: '3600' }),
        headers: { 'content-type': FORM, ...cookie },
      });
      assert.equal(rotated.status, 303);
      const after = await secretOf(hook.id);
      assert.notEqual(after.secret, secret);
      assert.ok(after.previous_secret_expires_at !== null);
    });
  });
}
