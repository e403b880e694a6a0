// The console's new pages over HTTPS: each needs a session (and settings access where it manages the store),
// and each form its CSRF token; refused requests change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addAdmin, createAdmin, signIn } from '../../src/auth/admins.ts';
import { authenticateClient, createApp, findApp, type App } from '../../src/auth/apps.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { sqliteTarget } from '../support/targets.ts';
import { form, FORM, signInOverHttp, type ConsoleSession } from './support/console-session.ts';

describe('console pages: sessions, settings access and CSRF', () => {
  let s: StoreUnderTest;
  let origin: string;
  let owner: ConsoleSession;
  let limited: ConsoleSession;
  let app: App;
  let secret: string;
  let helperId: number;
  let ownerId: number;
  before(async () => {
    s = await startStoreUnderTest(await sqliteTarget());
    origin = new URL(s.api).origin;
    const first = s.store.firstStart;
    assert.ok(first !== undefined);
    const ctx = s.store.app.storeAuth;
    ({ app, secret } = await createApp(ctx, first.storeId, { name: 'Guarded', kind: 'custom' }));
    ownerId = (await createAdmin(ctx, first.storeId, { email: first.email, password: first.password })).id;
    helperId = (
      await addAdmin(ctx, first.storeId, { email: 'catalog@example.com', password: 'catalog only password', access: ['catalog'] })
    ).id;
    const signedOwner = await signInOverHttp(s, first.email, first.password);
    const signedLimited = await signInOverHttp(s, 'catalog@example.com', 'catalog only password');
    assert.ok(signedOwner.session && signedLimited.session);
    owner = signedOwner.session;
    limited = signedLimited.session;
  });
  after(async () => {
    await s?.close();
  });

  const get = (path: string, cookie?: string) =>
    s.call('GET', `${origin}${path}`, cookie === undefined ? { anonymous: true } : { headers: { cookie } });
  const post = (path: string, fields: Record<string, string>, cookie?: string) =>
    s.call('POST', `${origin}${path}`, {
      rawBody: form(fields),
      headers: { 'content-type': FORM, ...(cookie === undefined ? {} : { cookie }) },
      anonymous: cookie === undefined,
    });

  const unchanged = async () => {
    assert.equal(
      (await authenticateClient(s.store.app.storeAuth, app.clientId, secret))?.name,
      'Guarded',
      'the app, its name and its secret are as they were',
    );
    assert.equal(
      (await signIn(s.store.app.storeAuth, 'catalog@example.com', 'catalog only password', '192.0.2.1')).ok,
      true,
      'the other admin is still there',
    );
  };

  const forms = () =>
    [
      [`/admin/apps/${app.id}`, { name: 'Renamed', kind: 'custom', redirect_uri: '' }],
      [`/admin/apps/${app.id}/secret`, {}],
      [`/admin/apps/${app.id}/delete`, {}],
      ['/admin/admins', { email: 'sneaky@example.com', access: 'settings' }],
      [`/admin/admins/${helperId}/remove`, {}],
      ['/admin/account/password', { current: 'x', next: 'sneaky password', repeated: 'sneaky password' }],
    ] as const;

  test('signed out: pages send to sign-in, forms are refused', async () => {
    for (const path of [
      '/admin',
      `/admin/apps/${app.id}/edit`,
      `/admin/apps/${app.id}/delete`,
      '/admin/admins',
      `/admin/admins/${helperId}/remove`,
      '/admin/account',
    ]) {
      const reply = await get(path);
      assert.equal(reply.status, 303, path);
      assert.equal(reply.headers.location, `/admin/sign-in?next=${encodeURIComponent(path)}`);
    }
    for (const [path, fields] of forms()) assert.equal((await post(path, fields)).status, 403, path);
    await unchanged();
  });

  test("signed in, every form without its CSRF token or with another session's is refused", async () => {
    for (const [path, fields] of forms()) {
      assert.equal((await post(path, fields, owner.cookie)).status, 403, `${path} without a token`);
      assert.equal(
        (await post(path, { ...fields, _csrf: limited.csrf }, owner.cookie)).status,
        403,
        `${path} with another session's token`,
      );
    }
    await unchanged();
    assert.equal(await findApp(s.store.app.storeAuth, { id: app.id, storeId: app.storeId }).then((a) => a?.name), 'Guarded');
  });

  test('an admin without settings access sees the home page and their account, nothing that manages the store', async () => {
    const home = await get('/admin', limited.cookie);
    assert.equal(home.status, 200);
    assert.match(home.text, /no settings access/);
    assert.doesNotMatch(home.text, /href="\/admin\/admins"/);
    assert.equal((await get('/admin/account', limited.cookie)).status, 200);
    for (const path of [
      '/admin/apps',
      `/admin/apps/${app.id}/edit`,
      `/admin/apps/${app.id}/delete`,
      '/admin/admins',
      `/admin/admins/${ownerId}/remove`,
    ]) {
      assert.equal((await get(path, limited.cookie)).status, 403, path);
    }
    for (const [path, fields] of forms().filter(([path]) => !path.startsWith('/admin/account'))) {
      assert.equal((await post(path, { ...fields, _csrf: limited.csrf }, limited.cookie)).status, 403, path);
    }
    await unchanged();
  });

  test('removing yourself is refused with a reason, and an unknown admin or app is 404', async () => {
    const self = await post(`/admin/admins/${ownerId}/remove`, { _csrf: owner.csrf }, owner.cookie);
    assert.equal(self.status, 400);
    assert.match(self.text, /cannot remove yourself/);
    assert.equal((await get(`/admin/admins/${ownerId}/remove`, owner.cookie)).status, 400);
    assert.equal((await post('/admin/admins/99999/remove', { _csrf: owner.csrf }, owner.cookie)).status, 404);
    assert.equal((await post('/admin/apps/99999/secret', { _csrf: owner.csrf }, owner.cookie)).status, 404);
    assert.equal((await get('/admin/apps/99999/edit', owner.cookie)).status, 404);
    await unchanged();
  });

  test('the console script is served from the console under a CSP that allows only its own scripts', async () => {
    const script = await get('/admin/console.js');
    assert.equal(script.status, 200);
    assert.match(String(script.headers['content-type']), /javascript/);
    const home = await get('/admin', owner.cookie);
    const csp = String(home.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(home.text, /<script src="\/admin\/console\.js" defer><\/script>/);
    assert.doesNotMatch(home.text, /<script>|\son[a-z]+="/, 'no inline script, no inline handlers');
  });
});
