// Console pages are not API calls: loading them must not use up the per-plan 10-second window of the
// address they come from, nor of the admin's signed-in browser.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../src/auth/apps.ts';
import { WINDOW_MS } from '../../src/limits/window-counter.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { sqliteTarget } from '../support/targets.ts';
import { signInOverHttp, type ConsoleSession } from './support/console-session.ts';

describe('console pages and the API rate limit', () => {
  let s: StoreUnderTest;
  let origin: string;
  let session: ConsoleSession;
  let appPath: string;
  let consentPath: string;
  before(async () => {
    // A clock frozen inside one window: every call below falls in the same 10 seconds.
    const frozen = Math.ceil(Date.now() / WINDOW_MS) * WINDOW_MS + 100;
    s = await startStoreUnderTest(await sqliteTarget(), { plan: 'steel', clock: () => frozen, without: {} });
    origin = new URL(s.api).origin;
    const admin = s.store.firstStart;
    assert.ok(admin !== undefined);
    const made = await createApp(s.store.app.storeAuth, admin.storeId, {
      name: 'Reports portal',
      kind: 'custom',
      redirectUri: 'https://reports.example/callback',
    });
    appPath = `/admin/apps/${made.app.id}`;
    consentPath = `/api/oauth?client_id=${made.app.clientId}&scope=read_catalog&redirect_uri=${encodeURIComponent('https://reports.example/callback')}`;
    const signed = await signInOverHttp(s, admin.email, admin.password);
    assert.ok(signed.session !== undefined);
    session = signed.session;
  });
  after(async () => {
    await s?.close();
  });

  test('30 console page loads on a Steel plan (5 calls per 10 s) are all served, uncounted, and leave the API window untouched', async () => {
    const pages = [
      '/admin',
      '/admin/apps',
      '/admin/apps/new',
      appPath,
      `${appPath}/edit`,
      '/admin/plan',
      '/admin/admins',
      '/admin/account',
      '/admin/webhooks',
      consentPath,
    ];
    for (let i = 0; i < 30; i += 1) {
      const path = pages[i % pages.length] ?? '/admin';
      const reply = await s.call('GET', `${origin}${path}`, { headers: { cookie: session.cookie } });
      assert.equal(reply.status, 200, path);
      assert.equal(reply.headers['x-ac-call-limit'], undefined, `${path} is not counted`);
    }
    for (let i = 0; i < 10; i += 1) assert.equal((await s.call('GET', `${origin}/admin/console.css`, { anonymous: true })).status, 200);

    // The same browser's first API read, and an anonymous caller from the same address: each is call 1 of 5.
    const read = await s.call('GET', '/products', { headers: { cookie: session.cookie } });
    assert.equal(read.status, 200);
    assert.equal(read.headers['x-ac-call-limit'], '1/5');
    const anonymous = await s.call('GET', '/products', { anonymous: true });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers['x-ac-call-limit'], '1/5');
  });

  test('API calls are still limited: the sixth read in the window is refused', async () => {
    for (let i = 2; i <= 5; i += 1)
      assert.equal((await s.call('GET', '/products', { headers: { cookie: session.cookie } })).headers['x-ac-call-limit'], `${i}/5`);
    assert.equal((await s.call('GET', '/products', { headers: { cookie: session.cookie } })).status, 429);
    // ...while the console keeps working.
    assert.equal((await s.call('GET', `${origin}/admin/apps`, { headers: { cookie: session.cookie } })).status, 200);
  });
});
