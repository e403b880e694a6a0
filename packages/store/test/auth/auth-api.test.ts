/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// Every way into the API over real HTTPS: tokens, scopes, sessions, CSRF, lockout, and both OAuth flows.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { format } from 'node:util';
import { createApp, type App } from '../../src/auth/apps.ts';
import { issueOAuthTokens, createConsoleToken } from '../../src/auth/tokens.ts';
import { cookiesOf, csrfIn, form, FORM, signInOverHttp, type ConsoleSession } from './support/console-session.ts';
import { describeOnEachDatabase } from '../support/each-database.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const REDIRECT = 'http://127.0.0.1:9/Callback';

await describeOnEachDatabase('store auth over HTTPS', (sut) => {
  let origin: string;
  let admin: { email: string; password: string };
  let client: App;
  let clientSecret: string;
  let session: ConsoleSession;

  before(async () => {
    origin = new URL(sut.api).origin;
    const first = sut.store.firstStart;
    assert.ok(first !== undefined);
    admin = { email: first.email, password: first.password };
    const made = await createApp(sut.store.app.storeAuth, first.storeId, { name: 'Partner', kind: 'installed', redirectUri: REDIRECT });
    client = made.app;
    clientSecret = made.secret;
    const signed = await signInOverHttp(sut, admin.email, admin.password);
    assert.ok(signed.session !== undefined, `sign-in failed: ${signed.reply.status}`);
    session = signed.session;
  });

  const tokenFor = async (scopes: string) => (await createConsoleToken(sut.store.app.storeAuth, client, { scopes })).accessToken;

  test('no token, or a wrong one, is 401 in the error format', async () => {
    const none = await sut.call('GET', '/products', { anonymous: true });
    assert.equal(none.status, 401);
    assert.deepEqual(Object.keys(none.json as object).sort(), ['details', 'message', 'status_code']);
    assert.match(none.json.details, /X-AC-Auth-Token/);
    const bad = await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': 'not-a-token' } });
    assert.equal(bad.status, 401);
    assert.equal(bad.json.status_code, 401);
    assert.equal((await sut.call('GET', '/openapi.json', { anonymous: true })).status, 200, 'the API documentation is public');
  });

  test('a token reads what its scopes allow, and gets 403 for the rest', async () => {
    const token = await tokenFor('read_catalog');
    const list = await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': token } });
    assert.equal(list.status, 200);
    assert.match(String(list.headers['cache-control']), /private/);
    const write = await sut.call('POST', '/products', {
      headers: { 'x-ac-auth-token': token },
      body: { item_name: 'Lamp', item_number: 'L-1' },
    });
    assert.equal(write.status, 403);
    assert.match(write.json.details, /\bcatalog\b/);
    const people = await sut.call('GET', '/customers', { headers: { 'x-ac-auth-token': token } });
    assert.equal(people.status, 403);
    assert.match(people.json.details, /read_people/);
    const customers = await tokenFor('read_people');
    assert.equal((await sut.call('GET', '/customers', { headers: { 'x-ac-auth-token': customers } })).status, 200);
    const expanded = await sut.call('GET', '/customers?expand=orders', { headers: { 'x-ac-auth-token': customers } });
    assert.equal(expanded.status, 403, 'expanding into orders needs read_orders too');
    assert.match(expanded.json.details, /read_orders/);
    const writer = await tokenFor('catalog');
    const created = await sut.call('POST', '/products', {
      headers: { authorization: `Bearer ${writer}` },
      body: { item_name: 'Lamp', item_number: 'L-1' },
    });
    assert.equal(created.status, 201, created.text);
  });

  test('a revoked token and an expired one are refused', async () => {
    const ctx = sut.store.app.storeAuth;
    const issued = await createConsoleToken(ctx, client, { scopes: 'read_catalog' });
    const revoke = await sut.call('POST', `${origin}/admin/apps/${client.id}/tokens/${issued.record.id}/revoke`, {
      rawBody: form({ _csrf: session.csrf }),
      headers: { 'content-type': FORM, cookie: session.cookie },
    });
    assert.equal(revoke.status, 303);
    const after = await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': issued.accessToken } });
    assert.equal(after.status, 401);
    assert.match(after.json.details, /revoked/);
    const old = await issueOAuthTokens({ ...ctx, now: () => Date.now() - ctx.lifetimes.accessTokenMs - 1000 }, client, {
      scopes: ['read_catalog'],
      adminUserId: 1,
    });
    const expired = await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': old.accessToken } });
    assert.equal(expired.status, 401);
    assert.match(expired.json.details, /expired/);
  });

  test('a signed-in browser may GET the API, but writing still needs a token', async () => {
    const read = await sut.call('GET', '/products', { headers: { cookie: session.cookie } });
    assert.equal(read.status, 200);
    const write = await sut.call('POST', '/products', {
      headers: { cookie: session.cookie },
      body: { item_name: 'X', item_number: 'X-1' },
    });
    assert.equal(write.status, 401);
    assert.match(write.json.details, /only read/);
  });

  test('console forms refuse a missing or foreign CSRF token', async () => {
    const missing = await sut.call('POST', `${origin}/admin/apps`, {
      rawBody: form({ name: 'Sneaky', kind: 'custom' }),
      headers: { 'content-type': FORM, cookie: session.cookie },
    });
    assert.equal(missing.status, 403);
    const foreign = await sut.call('POST', `${origin}/admin/apps`, {
      rawBody: form({ _csrf: randomBytes(32).toString('base64url'), name: 'Sneaky', kind: 'custom' }),
      headers: { 'content-type': FORM, cookie: session.cookie },
    });
    assert.equal(foreign.status, 403);
    const list = await sut.call('GET', `${origin}/admin/apps`, { headers: { cookie: session.cookie } });
    assert.doesNotMatch(list.text, /Sneaky/);
  });

  test('repeated wrong passwords lock the account', async () => {
    let last;
    for (let i = 0; i < 5; i++) last = await signInOverHttp(sut, 'locked@store.localhost', 'wrong password');
    assert.equal(last?.reply.status, 429);
    assert.match(last?.reply.text ?? '', /Too many failed sign-ins/);
    const wrong = await signInOverHttp(sut, admin.email, 'not the password');
    assert.equal(wrong.reply.status, 401);
  });

  /** Signs in, asks for a grant, allows it, and returns where the store sent the browser. */
  async function grant(query: Record<string, string> | string, decision = 'allow', appName = 'Partner'): Promise<URL> {
    const url = typeof query === 'string' ? query : `${origin}/api/oauth?${new URLSearchParams(query).toString()}`;
    const shown = await sut.call('GET', url, { headers: { cookie: session.cookie } });
    assert.equal(shown.status, 200, shown.text);
    assert.match(shown.text, new RegExp(`Grant access to ${appName}`));
    const fields = Object.fromEntries(
      [...shown.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1] ?? '',
        (m[2] ?? '').replaceAll('&amp;', '&'),
      ]),
    );
    const sent = await sut.call('POST', `${origin}/api/oauth`, {
      rawBody: form({ ...fields, decision }),
      headers: { 'content-type': FORM, cookie: session.cookie },
    });
    assert.equal(sent.status, 303, sent.text);
    return new URL(String(sent.headers.location));
  }

  test("App IDs are whole numbers, as the platform's clients format them (app_id=%d, app_id as a JSON number)", async () => {
    assert.match(client.clientId, /^[1-9]\d*$/);
    assert.equal(client.clientId, String(client.id));
    // The platform's Node web-flow client builds the authorize URL with util.format and %d, and leaves
    // redirect_url unencoded; a hex App ID became NaN there.
    const scope = 'read_catalog';
    const authorize = format('%s/api/oauth?app_id=%d&scope=%s&redirect_url=%s', origin, client.clientId, scope, REDIRECT);
    assert.doesNotMatch(authorize, /NaN/);
    const back = await grant(authorize);
    assert.equal(back.origin + back.pathname, REDIRECT);
    const code = back.searchParams.get('code') ?? '';
    const appId = Number(client.clientId);
    const signature = sha256(clientSecret + code + String(appId) + scope + REDIRECT.toLowerCase());
    const exchanged = await sut.call('POST', `${origin}/api/oauth/access_token`, {
      body: { app_id: appId, auth_id: back.searchParams.get('auth_id'), signature },
    });
    assert.equal(exchanged.status, 200, exchanged.text);
    assert.equal((await sut.call('GET', '/products?page=1', { headers: { 'x-ac-auth-token': exchanged.json.access_token } })).status, 200);
  });

  test('a redirect URI with a query names the registered one however its values are encoded, in the authorize step and the signature', async () => {
    // The Node web-flow sample's: it sends redirect_url unencoded (so the store reads r=http://...) and signs it encoded.
    const returnUrl = `http://localhost:3000/callback?r=${encodeURIComponent('http://localhost:3000')}`;
    const scope = 'read_catalog';
    for (const registered of [returnUrl, decodeURIComponent(returnUrl)]) {
      const { app, secret } = await createApp(sut.store.app.storeAuth, client.storeId, {
        name: `Web flow ${registered.length}`,
        kind: 'installed',
        redirectUri: registered,
      });
      const back = await grant(
        format('%s/api/oauth?app_id=%d&scope=%s&redirect_url=%s', origin, app.clientId, scope, returnUrl),
        'allow',
        app.name,
      );
      assert.equal(back.searchParams.get('r'), 'http://localhost:3000');
      const code = back.searchParams.get('code') ?? '';
      const signed = sha256(
        secret +
          code +
          app.clientId +
          scope +
          `http://localhost:3000/callback?r=${encodeURIComponent(back.searchParams.get('r') ?? '')}`.toLowerCase(),
      );
      const exchanged = await sut.call('POST', `${origin}/api/oauth/access_token`, {
        body: { app_id: Number(app.clientId), auth_id: back.searchParams.get('auth_id'), signature: signed },
      });
      assert.equal(exchanged.status, 200, `${registered}: ${exchanged.text}`);
    }
    const other = await sut.call(
      'GET',
      `${origin}/api/oauth?${new URLSearchParams({ client_id: client.clientId, scope, redirect_uri: `${REDIRECT}?r=elsewhere` }).toString()}`,
      { headers: { cookie: session.cookie } },
    );
    assert.match(other.text, /does not match/, 'another query is another address');
  });

  test("the platform's flow: grant, signed exchange, single-use code, signed refresh", async () => {
    const scope = 'read_catalog,orders';
    const back = await grant({ client_id: client.clientId, scope, redirect_uri: REDIRECT, state: 'xyz' });
    assert.equal(back.origin + back.pathname, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'xyz');
    const authId = back.searchParams.get('auth_id') ?? '';
    const code = back.searchParams.get('code') ?? '';
    const signature = sha256(clientSecret + code + client.clientId + scope + REDIRECT.toLowerCase());

    const forged = await sut.call('POST', `${origin}/api/oauth/access_token`, {
      body: { client_id: client.clientId, auth_id: authId, signature: sha256('guess' + code) },
    });
    assert.equal(forged.status, 401);
    assert.equal(forged.json.error, 'invalid_client');

    const exchanged = await sut.call('POST', `${origin}/api/oauth/access_token`, {
      rawBody: form({ client_id: client.clientId, auth_id: authId, signature }),
      headers: { 'content-type': FORM },
    });
    assert.equal(exchanged.status, 200, exchanged.text);
    assert.equal(exchanged.headers['cache-control'], 'no-store');
    const { access_token, refresh_token, expires } = exchanged.json as { access_token: string; refresh_token: string; expires: string };
    assert.ok(Date.parse(expires) > Date.now());
    assert.equal((await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': access_token } })).status, 200);
    assert.equal((await sut.call('GET', '/customers', { headers: { 'x-ac-auth-token': access_token } })).status, 403);

    const reused = await sut.call('POST', `${origin}/api/oauth/access_token`, {
      body: { client_id: client.clientId, auth_id: authId, signature },
    });
    assert.equal(reused.status, 400);
    assert.equal(reused.json.error, 'invalid_grant');
    assert.equal(
      (await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': access_token } })).status,
      401,
      'reusing the code revokes its tokens',
    );

    // A fresh grant to test refresh (the first pair was revoked by the reuse).
    const again = await grant({ client_id: client.clientId, scope, redirect_uri: REDIRECT });
    const code2 = again.searchParams.get('code') ?? '';
    const pair = (
      await sut.call('POST', `${origin}/api/oauth/access_token`, {
        body: {
          client_id: client.clientId,
          auth_id: again.searchParams.get('auth_id'),
          signature: sha256(clientSecret + code2 + client.clientId + scope + REDIRECT.toLowerCase()),
        },
      })
    ).json as { refresh_token: string };
    const badRefresh = await sut.call('POST', `${origin}/api/oauth/refresh`, {
      body: { client_id: client.clientId, refresh_token: pair.refresh_token, signature: sha256('x') },
    });
    assert.equal(badRefresh.json.error, 'invalid_client');
    const refreshSig = sha256(clientSecret + pair.refresh_token + client.clientId);
    const refreshed = await sut.call('POST', `${origin}/api/oauth/refresh`, {
      body: { client_id: client.clientId, refresh_token: pair.refresh_token, signature: refreshSig },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.notEqual(refreshed.json.access_token, access_token);
    assert.equal((await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': refreshed.json.access_token } })).status, 200);
    const spent = await sut.call('POST', `${origin}/api/oauth/refresh`, {
      body: { client_id: client.clientId, refresh_token: pair.refresh_token, signature: refreshSig },
    });
    assert.equal(spent.json.error, 'invalid_grant');
    assert.equal(refresh_token === pair.refresh_token, false);
  });

  test('RFC 6749 with PKCE at /api/oauth/token', async () => {
    const verifier = randomBytes(40).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const back = await grant({
      response_type: 'code',
      client_id: client.clientId,
      scope: 'read_people decrypt',
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const code = back.searchParams.get('code') ?? '';
    const basic = `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64')}`;
    const post = (fields: Record<string, string>, headers: Record<string, string> = { authorization: basic }) =>
      sut.call('POST', `${origin}/api/oauth/token`, { rawBody: form(fields), headers: { 'content-type': FORM, ...headers } });

    const wrongSecret = await post(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { authorization: `Basic ${Buffer.from(`${client.clientId}:nope`).toString('base64')}` },
    );
    assert.equal(wrongSecret.status, 401);
    assert.equal(wrongSecret.json.error, 'invalid_client');
    assert.match(String(wrongSecret.headers['www-authenticate']), /^Basic/);
    const wrongVerifier = await post({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: randomBytes(40).toString('base64url'),
    });
    assert.equal(wrongVerifier.json.error, 'invalid_grant');
    assert.equal(
      (await post({ grant_type: 'authorization_code', code, redirect_uri: 'https://evil.example/cb', code_verifier: verifier })).json.error,
      'invalid_grant',
    );
    assert.equal((await post({ grant_type: 'authorization_code', redirect_uri: REDIRECT })).json.error, 'invalid_request');
    assert.equal((await post({ grant_type: 'password', username: 'a', password: 'b' })).json.error, 'unsupported_grant_type');

    const ok = await post({ grant_type: 'authorization_code', code, code_verifier: verifier });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.token_type, 'Bearer');
    assert.equal(ok.json.expires_in, 3600);
    assert.equal(ok.json.scope, 'read_people decrypt');

    const wider = await post({ grant_type: 'refresh_token', refresh_token: ok.json.refresh_token, scope: 'people' });
    assert.equal(wider.json.error, 'invalid_scope');
    const renewed = await post(
      { grant_type: 'refresh_token', refresh_token: ok.json.refresh_token, client_id: client.clientId, client_secret: clientSecret },
      {},
    );
    assert.equal(renewed.status, 200, renewed.text);
    assert.equal((await sut.call('GET', '/customers', { headers: { authorization: `Bearer ${renewed.json.access_token}` } })).status, 200);
    const refused = await post({ grant_type: 'refresh_token', refresh_token: ok.json.refresh_token });
    assert.equal(refused.json.error, 'invalid_grant', 'a refresh token works once');
    assert.equal(
      (await post({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })).json.error,
      'invalid_grant',
      'a code works once',
    );
  });

  test('authorization problems go back to the app, or stay here when the app cannot be trusted', async () => {
    const denied = await grant({ client_id: client.clientId, scope: 'read_catalog', redirect_uri: REDIRECT, state: 's1' }, 'deny');
    assert.equal(denied.searchParams.get('error'), 'access_denied');
    assert.equal(denied.searchParams.get('state'), 's1');
    assert.ok(denied.searchParams.get('error_description'));
    const badScope = await sut.call(
      'GET',
      `${origin}/api/oauth?client_id=${client.clientId}&scope=everything&redirect_uri=${encodeURIComponent(REDIRECT)}`,
      { headers: { cookie: session.cookie } },
    );
    assert.equal(badScope.status, 303);
    assert.equal(new URL(String(badScope.headers.location)).searchParams.get('error'), 'invalid_scope');
    const unknownClient = await sut.call(
      'GET',
      `${origin}/api/oauth?client_id=nope&scope=read_catalog&redirect_uri=https://evil.example/`,
      { headers: { cookie: session.cookie } },
    );
    assert.equal(unknownClient.status, 400);
    assert.equal(unknownClient.headers.location, undefined);
    const otherRedirect = await sut.call(
      'GET',
      `${origin}/api/oauth?client_id=${client.clientId}&scope=read_catalog&redirect_uri=https://evil.example/`,
      { headers: { cookie: session.cookie } },
    );
    assert.equal(otherRedirect.status, 400);
    assert.equal(otherRedirect.headers.location, undefined);
    const signedOut = await sut.call('GET', `${origin}/api/oauth?client_id=${client.clientId}&scope=read_catalog`, { anonymous: true });
    assert.equal(signedOut.status, 303);
    assert.match(String(signedOut.headers.location), /^\/admin\/sign-in\?next=%2Fapi%2Foauth/);
  });

  test('signing out ends the browser session', async () => {
    const own = await signInOverHttp(sut, admin.email, admin.password);
    assert.ok(own.session);
    const out = await sut.call('POST', `${origin}/admin/sign-out`, {
      rawBody: form({ _csrf: own.session.csrf }),
      headers: { 'content-type': FORM, cookie: own.session.cookie },
    });
    assert.equal(out.status, 303);
    assert.equal(cookiesOf(out)['__Host-store_session'], '');
    assert.equal((await sut.call('GET', '/products', { headers: { cookie: own.session.cookie } })).status, 401);
    const page = await sut.call('GET', `${origin}/admin/apps`, { headers: { cookie: own.session.cookie } });
    assert.equal(page.status, 303);
    assert.ok(csrfIn((await sut.call('GET', `${origin}/admin/sign-in`)).text));
  });
});
