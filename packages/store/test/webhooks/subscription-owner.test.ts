/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// Another app cannot take over a subscription: repointing it at its own host would get it deliveries signed with the
// owner's secrets. Every API route that changes a subscription or reads what is the owner's alone answers 403 to
// any other app and leaves the subscription as it was; the owner, and admins in the console, still can.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { csrfIn, form, FORM, type ConsoleSession } from '../auth/support/console-session.ts';
import { firstAdminSession } from '../support/first-admin-session.ts';
import { issueTestToken } from '../support/test-token.ts';
import { describeOnEachDatabase } from '../support/each-database.ts';

await describeOnEachDatabase(
  "a subscription is its app's",
  (s) => {
    let owner: string;
    let intruder: string;
    let session: ConsoleSession;
    before(async () => {
      const storeId = s.store.firstStart?.storeId ?? 1;
      owner = await issueTestToken(s.store.app, storeId, 'webhooks,read_catalog', 'Owner app');
      intruder = await issueTestToken(s.store.app, storeId, 'webhooks,read_catalog', 'Intruder app');
      session = await firstAdminSession(s);
    });

    const as = (token: string) => ({ 'x-ac-auth-token': token, 'cache-control': 'no-cache' });
    const subscribe = async () => {
      const made = await s.call('POST', '/webhooks', {
        body: { event_type: 'ProductCreated', url: 'https://owner.example.test/hook' },
        headers: as(owner),
      });
      assert.equal(made.status, 201, made.text);
      return made.json as { id: number; url: string; app_client_id: string };
    };

    test('another app cannot repoint, take over or delete it, nor read or rotate its secret', async () => {
      const hook = await subscribe();
      const attacks: [string, string, unknown][] = [
        ['PUT', `/webhooks/${hook.id}`, { url: 'https://intruder.example.test/steal' }],
        ['PUT', `/webhooks/${hook.id}`, {}],
        // POST with an existing id is an update (an upsert), which would also make the intruder its signing app.
        ['POST', '/webhooks', { id: hook.id, event_type: 'ProductCreated', url: 'https://intruder.example.test/steal' }],
        ['DELETE', `/webhooks/${hook.id}`, undefined],
        ['GET', `/webhooks/${hook.id}/signing_secret`, undefined],
        ['POST', `/webhooks/${hook.id}/signing_secret/rotate`, { overlap_seconds: 0 }],
      ];
      for (const [method, path, body] of attacks) {
        const reply = await s.call(method, path, { headers: as(intruder), ...(body === undefined ? {} : { body }) });
        assert.equal(reply.status, 403, `${method} ${path}: ${reply.text}`);
        assert.deepEqual(Object.keys(reply.json).sort(), ['details', 'message', 'status_code']);
        assert.match(reply.json.details, new RegExp(`only the app that made it \\(App ID ${hook.app_client_id}\\)`));
      }
      const kept = await s.call('GET', `/webhooks/${hook.id}`, { headers: as(intruder) });
      assert.equal(kept.status, 200, 'reading subscriptions stays open to the webhooks scope');
      assert.equal(kept.json.url, 'https://owner.example.test/hook');
      assert.equal(kept.json.app_client_id, hook.app_client_id);
    });

    test('the app that made it changes and deletes it', async () => {
      const hook = await subscribe();
      const moved = await s.call('PUT', `/webhooks/${hook.id}`, { body: { url: 'https://owner.example.test/moved' }, headers: as(owner) });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.json.url, 'https://owner.example.test/moved');
      const upserted = await s.call('POST', '/webhooks', {
        body: { id: hook.id, event_type: 'ProductCreated', url: 'https://owner.example.test/again' },
        headers: as(owner),
      });
      assert.equal(upserted.status, 200, upserted.text);
      assert.equal(upserted.json.app_client_id, hook.app_client_id);
      assert.equal((await s.call('DELETE', `/webhooks/${hook.id}`, { headers: as(owner) })).status, 200);
      assert.equal((await s.call('GET', `/webhooks/${hook.id}`, { headers: as(owner) })).status, 404);
    });

    test('an admin deletes any app’s subscription in the console', async () => {
      const hook = await subscribe();
      const origin = new URL(s.api).origin;
      const list = await s.call('GET', `${origin}/admin/webhooks`, { headers: { cookie: session.cookie } });
      const deleted = await s.call('POST', `${origin}/admin/webhooks/${hook.id}/delete`, {
        rawBody: form({ _csrf: csrfIn(list.text) }),
        headers: { 'content-type': FORM, cookie: session.cookie },
      });
      assert.equal(deleted.status, 303, deleted.text);
      assert.equal((await s.call('GET', `/webhooks/${hook.id}`, { headers: as(owner) })).status, 404);
    });
  },
  { webhooks: { deliver: false } },
);
