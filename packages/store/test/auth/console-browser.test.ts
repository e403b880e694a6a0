/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// The console in a real browser (Debian's Chromium): sign in, make an app and a token, use it;
// and the OAuth authorize-and-grant flow driven by a small client app. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Agent, request } from 'undici';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = resolve(import.meta.dirname, '../../../../test-artifacts/store-console');
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`;
if (skip !== false) console.log(`# skipping console browser tests: ${skip}`);

const sqlite = (await testDatabaseTargets()).find((t) => t.dialect === 'sqlite');

describe('admin console in Chromium', { skip }, () => {
  let sut: StoreUnderTest;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let admin: { email: string; password: string };

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    assert.ok(sqlite);
    sut = await startStoreUnderTest(sqlite);
    origin = new URL(sut.api).origin;
    const first = sut.store.firstStart;
    assert.ok(first);
    admin = { email: first.email, password: first.password };
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1100, height: 760 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  });
  after(async () => {
    await browser?.close();
    await sut?.close();
  });

  async function signIn(): Promise<void> {
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  test('sign in, make an app, read its ID and secret, make a token, call the API with it', async () => {
    await page.goto(`${origin}/admin`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign in to the store admin');
    await shot('01-sign-in');
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /email or password is not right/);
    await signIn();
    await page.waitForURL(`${origin}/admin/apps`);
    assert.match((await page.getByRole('navigation', { name: 'Breadcrumb' }).textContent()) ?? '', /Tools.*Apps & Addons.*API Apps & Integrations/s);
    await shot('02-apps');

    await page.getByRole('link', { name: 'New' }).click();
    await page.getByLabel('App name').fill('Warehouse sync');
    await page.getByLabel(/Custom app/).check();
    await shot('03-new-app');
    await page.getByRole('button', { name: 'Save' }).click();
    const appId = (await page.locator('#app-id').textContent()) ?? '';
    const secret = (await page.locator('#app-secret').textContent()) ?? '';
    assert.match(appId, /^[1-9]\d*$/);
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    await shot('04-app-saved');

    await page.getByRole('link', { name: 'Continue to the app' }).click();
    assert.doesNotMatch(await page.content(), new RegExp(secret), 'the secret is not shown again');
    await page.getByLabel('Label').fill('Nightly sync');
    await page.getByRole('checkbox', { name: /read_catalog/ }).check();
    await page.getByRole('checkbox', { name: /^orders/ }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('#token').textContent()) ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    await shot('05-token-created');

    const products = await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': token } });
    assert.equal(products.status, 200);
    assert.equal(typeof products.json.total_count, 'number');
    assert.equal((await sut.call('GET', '/customers', { headers: { 'x-ac-auth-token': token } })).status, 403);

    await page.getByRole('link', { name: 'Back to Warehouse sync' }).click();
    assert.match((await page.getByRole('table').textContent()) ?? '', /Nightly sync.*Active/s);
    await shot('06-app-tokens');
    await page.getByRole('button', { name: 'Revoke Nightly sync' }).click();
    assert.match((await page.getByRole('table').textContent()) ?? '', /Revoked/);
    assert.equal((await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': token } })).status, 401);

    await page.getByRole('link', { name: 'Store plan' }).click();
    await page.getByLabel('Plan level').selectOption('bronze');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /10 calls per 10 seconds/);
    await shot('07-plan');

    await page.getByRole('link', { name: 'API Apps & Integrations' }).click();
    await shot('08-apps-list');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/admin/sign-in`);
  });

  test('OAuth: a client app sends the admin to authorize, the admin grants, the app calls the API', async () => {
    // The client app registers first, in the console.
    await page.goto(`${origin}/admin/apps/new`);
    await signIn();
    const client = await startClientApp(origin, sut.store.certificate);
    try {
      await page.waitForURL(`${origin}/admin/apps/new`);
      await page.getByLabel('App name').fill('Reports portal');
      await page.getByLabel(/Installed app/).check();
      await page.getByLabel('OAuth redirect URI').fill(client.redirectUri);
      await page.getByRole('button', { name: 'Save' }).click();
      client.credentials.clientId = (await page.locator('#app-id').textContent()) ?? '';
      client.credentials.secret = (await page.locator('#app-secret').textContent()) ?? '';
      await page.getByRole('button', { name: 'Sign out' }).click();

      await page.goto(`${client.url}/connect`);
      await page.waitForURL(/\/admin\/sign-in/);
      await signIn();
      await page.waitForURL(/\/api\/oauth\?/);
      assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /Grant access to Reports portal/);
      assert.match((await page.locator('#requested-scopes').textContent()) ?? '', /read_catalog/);
      await shot('09-oauth-grant');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${client.url}/callback?**`);
      assert.match((await page.locator('body').textContent()) ?? '', /Connected to the store: \d+ products/);
      await shot('10-oauth-client-connected');
    } finally {
      await client.close();
    }
  });
});

interface ClientApp {
  url: string;
  redirectUri: string;
  credentials: { clientId: string; secret: string };
  close(): Promise<void>;
}

/** A small third-party app: it starts the platform's OAuth flow and, called back, exchanges the code and lists products. */
async function startClientApp(store: string, certificate: string): Promise<ClientApp> {
  const dispatcher = new Agent({ connect: { ca: certificate } });
  const credentials = { clientId: '', secret: '' };
  const scope = 'read_catalog';
  let redirectUri = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/connect') {
      const target = new URL('/api/oauth', store);
      target.search = new URLSearchParams({ client_id: credentials.clientId, scope, redirect_uri: redirectUri, state: 'client-state' }).toString();
      res.writeHead(302, { location: target.toString() }).end();
      return;
    }
    if (url.pathname === '/callback') {
      void (async () => {
        const code = url.searchParams.get('code') ?? '';
        const signature = createHash('sha256').update(credentials.secret + code + credentials.clientId + scope + redirectUri.toLowerCase()).digest('hex');
        const exchange = await request(new URL('/api/oauth/access_token', store), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_id: credentials.clientId, auth_id: url.searchParams.get('auth_id'), signature }),
          dispatcher,
        });
        const tokens = (await exchange.body.json()) as { access_token?: string };
        const products = await request(new URL('/api/v1/products', store), { headers: { 'x-ac-auth-token': tokens.access_token ?? '' }, dispatcher });
        const list = (await products.body.json()) as { total_count?: number };
        const ok = url.searchParams.get('state') === 'client-state' && products.statusCode === 200;
        res.writeHead(ok ? 200 : 500, { 'content-type': 'text/html' }).end(`<!doctype html><title>Reports portal</title><h1>${ok ? `Connected to the store: ${list.total_count} products` : 'Failed'}</h1>`);
      })().catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  redirectUri = `${url}/callback`;
  return {
    url,
    redirectUri,
    credentials,
    close: async () => {
      await new Promise((done) => server.close(done));
      await dispatcher.close();
    },
  };
}
