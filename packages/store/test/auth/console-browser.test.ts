/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// The console in a real browser (Debian's Chromium), under its own strict CSP: every page at desktop width and
// at 360 px (no sideways scrolling), checked by axe-core, photographed; and what an admin does there: apps
// (new, edit, rotate the secret, delete), tokens with access per area, copy buttons, admins, their own
// password, and the OAuth consent page driven by a small client app.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Agent, request } from 'undici';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { sqliteTarget } from '../support/targets.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`;
if (skip !== false) console.log(`# skipping console browser tests: ${skip}`);
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1200, height: 800 };
const PHONE = { width: 360, height: 740 };
/** Screenshots go here (a fresh temporary folder unless STORE_CONSOLE_SHOTS names one). */
const SHOTS = process.env.STORE_CONSOLE_SHOTS ?? mkdtempSync(join(tmpdir(), 'store-console-shots-'));

describe('admin console in Chromium', { skip }, () => {
  let sut: StoreUnderTest;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let admin: { email: string; password: string };
  const cspErrors: string[] = [];
  const checked: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    console.log(`# screenshots in ${SHOTS}`);
    sut = await startStoreUnderTest(await sqliteTarget(), { webhooks: { allowedNetworks: ['127.0.0.0/8'] } });
    origin = new URL(sut.api).origin;
    const first = sut.store.firstStart;
    assert.ok(first);
    admin = { email: first.email, password: first.password };
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    // No bypassCSP: the console's own CSP stays in force, so a blocked script would show.
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspErrors.push(message.text());
    });
    page.on('pageerror', (error) => cspErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await sut?.close();
  });

  /** At desktop width and at 360 px: no sideways scrolling, no serious or critical axe finding, and a screenshot each. */
  async function check(name: string): Promise<void> {
    for (const [label, size] of [
      ['desktop', DESKTOP],
      ['360px', PHONE],
    ] as const) {
      await page.setViewportSize(size);
      const widths = await page.evaluate<{ scroll: number; view: number }>(
        '({ scroll: document.documentElement.scrollWidth, view: document.documentElement.clientWidth })',
      );
      assert.ok(widths.scroll <= widths.view, `${name} at ${label}: the page is ${widths.scroll} px wide in a ${widths.view} px window`);
      await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
      // Evaluated through the debugging protocol, which the page's CSP does not govern.
      await page.evaluate(axeSource);
      const violations = await page.evaluate<
        { id: string; impact: string; targets: string[] }[]
      >(`axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] })
        .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      console.log(
        `# axe ${name} ${label}: ${violations.length === 0 ? 'no violations' : violations.map((v) => `${v.impact} ${v.id}`).join(', ')}`,
      );
      assert.deepEqual(serious, [], `${name} at ${label}: ${JSON.stringify(serious)}`);
    }
    await page.setViewportSize(DESKTOP);
    checked.push(name);
  }

  const h1 = async () => (await page.getByRole('heading', { level: 1 }).textContent())?.trim() ?? '';
  const crumbLinks = () => page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link').allTextContents();

  /** Clicks a copy button and reads the clipboard back. */
  async function copied(buttonName: string): Promise<string> {
    const button = page.getByRole('button', { name: buttonName });
    await button.click();
    await page.locator('.copyable', { has: button }).getByRole('status').filter({ hasText: 'Copied to the clipboard' }).waitFor();
    return page.evaluate<string>('navigator.clipboard.readText()');
  }

  async function signIn(password = admin.password): Promise<void> {
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  test('apps: new, copy the ID and secret, tokens with access per area, edit, rotate the secret, delete', async () => {
    await page.goto(`${origin}/admin`);
    assert.equal(await h1(), 'Sign in to the store admin');
    await check('01-sign-in');
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /email or password is not right/);
    await signIn();
    await page.waitForURL(`${origin}/admin`);
    assert.equal(await h1(), 'Store admin');
    await check('02-home');

    await page.getByRole('main').getByRole('link', { name: 'API Apps & Integrations' }).click();
    await page.waitForURL(`${origin}/admin/apps`);
    assert.deepEqual(await crumbLinks(), ['Store admin', 'Tools', 'Apps & Addons'], 'every crumb but the page itself is a link');
    await check('03-apps');

    await page.getByRole('link', { name: 'New', exact: true }).click();
    await page.getByLabel('App name').fill('Warehouse sync');
    await page.getByLabel(/Custom app/).check();
    await check('04-new-app');
    await page.getByRole('button', { name: 'Save' }).click();
    const appId = (await page.locator('#app-id').textContent()) ?? '';
    const secret = (await page.locator('#app-secret').textContent()) ?? '';
    assert.match(appId, /^[1-9]\d*$/);
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(await copied('Copy the App Secret'), secret, 'the copy button puts the secret on the clipboard');
    assert.equal(await copied('Copy the App ID'), appId);
    await check('05-app-saved');

    await page.getByRole('link', { name: 'Continue to the app' }).click();
    assert.doesNotMatch(await page.content(), new RegExp(secret), 'the secret is not shown again');
    assert.deepEqual(await crumbLinks(), ['Store admin', 'Tools', 'Apps & Addons', 'API Apps & Integrations']);
    await check('06-app');
    await page.getByLabel('Label').fill('Nightly sync');
    await page
      .getByRole('radiogroup', { name: /^Catalog/ })
      .getByLabel('Read', { exact: true })
      .check();
    await page
      .getByRole('radiogroup', { name: /^Orders/ })
      .getByLabel('Modify')
      .check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('#token').textContent()) ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.match((await page.locator('dl').textContent()) ?? '', /Catalog: read; Orders: read and modify.*read_catalog orders no_expiry/s);
    assert.equal(await copied('Copy the token'), token);
    await check('07-token-created');

    const products = await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': token } });
    assert.equal(products.status, 200);
    assert.equal((await sut.call('GET', '/customers', { headers: { 'x-ac-auth-token': token } })).status, 403);

    await page.getByRole('link', { name: 'Back to Warehouse sync' }).click();
    assert.match((await page.getByRole('table').textContent()) ?? '', /Nightly sync.*Catalog: read; Orders: read and modify.*Active/s);
    await page.getByRole('button', { name: 'Revoke Nightly sync' }).click();
    assert.match((await page.getByRole('table').textContent()) ?? '', /Revoked/);
    assert.equal((await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': token } })).status, 401);

    // No area chosen: the form says so and keeps nothing half-made.
    await page.getByRole('button', { name: 'Create token' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /at least one area/);

    await page.getByRole('link', { name: 'Edit app' }).click();
    await check('08-edit-app');
    await page.getByLabel('App name').fill('Warehouse sync EU');
    await page.getByLabel(/Installed app/).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    assert.equal(await h1(), 'Warehouse sync EU');
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /Changes saved/);
    assert.match((await page.locator('dl').first().textContent()) ?? '', /Installed app/);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    assert.equal(await h1(), 'New App Secret');
    const rotated = (await page.locator('#app-secret').textContent()) ?? '';
    assert.match(rotated, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(rotated, secret);
    await check('09-secret-rotated');
    const clientAuth = (withSecret: string) =>
      sut.call('POST', `${origin}/api/oauth/token`, {
        anonymous: true,
        body: { grant_type: 'refresh_token', client_id: appId, client_secret: withSecret, refresh_token: 'not-a-refresh-token' },
      });
    const old = await clientAuth(secret);
    assert.equal(old.status, 401, 'the old secret no longer authenticates the app');
    assert.equal(old.json.error, 'invalid_client');
    const current = await clientAuth(rotated);
    assert.equal(current.json.error, 'invalid_grant', 'the new secret does; only the made-up refresh token is wrong');

    await page.getByRole('link', { name: 'Continue to the app' }).click();
    await page
      .getByRole('radiogroup', { name: /^Catalog/ })
      .getByLabel('Read', { exact: true })
      .check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const second = (await page.locator('#token').textContent()) ?? '';
    assert.equal((await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': second } })).status, 200);
    await page.getByRole('link', { name: 'Back to Warehouse sync EU' }).click();
    await page.getByRole('link', { name: 'Delete app…' }).click();
    assert.equal(await h1(), 'Delete Warehouse sync EU?');
    assert.match((await page.getByRole('main').textContent()) ?? '', /stops its 1 active token/);
    await check('10-delete-app');
    await page.getByRole('button', { name: 'Delete Warehouse sync EU' }).click();
    await page.waitForURL(`${origin}/admin/apps?deleted=1`);
    assert.doesNotMatch((await page.getByRole('main').textContent()) ?? '', /Warehouse sync/);
    assert.equal(
      (await sut.call('GET', '/products', { headers: { 'x-ac-auth-token': second } })).status,
      401,
      "a deleted app's tokens stop working",
    );
    assert.equal((await clientAuth(rotated)).json.error, 'invalid_client');
  });

  test('settings: plan, webhooks and their log', async () => {
    await page.getByRole('link', { name: 'Store plan' }).click();
    await page.getByLabel('Plan level').selectOption('bronze');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /10 calls per 10 seconds/);
    await check('11-plan');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Event').selectOption('ProductCreated');
    await page.getByLabel('URL', { exact: true }).fill('https://127.0.0.1:9/hooks/products');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${origin}/admin/webhooks`);
    await check('12-webhooks');
    await page.getByRole('link', { name: 'ProductCreated' }).click();
    assert.deepEqual(await crumbLinks(), ['Store admin', 'Settings', 'Webhooks']);
    await check('13-webhook-log');
  });

  test('admins: add one (first password shown once, copied), remove them; not yourself; change your own password', async () => {
    await page.getByRole('link', { name: 'Admins' }).click();
    assert.equal(await h1(), 'Admins');
    await check('14-admins');
    assert.equal(await page.getByRole('link', { name: `Remove ${admin.email}` }).count(), 0, 'no remove link for yourself');

    await page.getByLabel('Email').fill('helper@example.com');
    await page.getByRole('checkbox', { name: 'Orders' }).uncheck();
    await page.getByRole('button', { name: 'Add admin' }).click();
    assert.equal(await h1(), 'Admin added');
    const password = (await page.locator('#admin-password').textContent()) ?? '';
    assert.ok(password.length >= 20);
    assert.equal(await copied('Copy the password'), password);
    await check('15-admin-added');

    // The new admin can sign in, in a browser of their own, and sees no settings.
    const other = await browser.newContext({ ignoreHTTPSErrors: true, viewport: PHONE });
    try {
      const theirs = await other.newPage();
      await theirs.goto(`${origin}/admin`);
      await theirs.getByLabel('Email').fill('helper@example.com');
      await theirs.getByLabel('Password').fill(password);
      await theirs.getByRole('button', { name: 'Sign in' }).click();
      await theirs.waitForURL(`${origin}/admin`);
      assert.match((await theirs.getByRole('main').textContent()) ?? '', /no settings access/);
    } finally {
      await other.close();
    }

    await page.getByRole('link', { name: 'Back to admins' }).click();
    assert.match((await page.getByRole('table').textContent()) ?? '', /helper@example\.com.*Catalog, Customers, Content, Marketing/s);
    await page.getByLabel('Email').fill('Helper@Example.com');
    await page.getByRole('button', { name: 'Add admin' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /already an admin with the email helper@example\.com/);
    await page.getByRole('link', { name: 'Remove helper@example.com' }).click();
    await check('16-remove-admin');
    await page.getByRole('button', { name: 'Remove helper@example.com' }).click();
    await page.waitForURL(`${origin}/admin/admins?removed=1`);
    assert.doesNotMatch((await page.getByRole('table').textContent()) ?? '', /helper@example\.com/);
    const me = /\/admin\/admins\/(\d+)\/remove/.exec(await page.content());
    assert.equal(me, null, 'the last admin cannot be removed: no link is offered');

    await page.getByRole('link', { name: admin.email }).click();
    assert.equal(await h1(), 'Your account');
    await check('17-account');
    await page.getByLabel('Current password').fill('wrong password');
    await page.getByLabel('New password', { exact: true }).fill('a new long password');
    await page.getByLabel('New password again').fill('a new long password');
    await page.getByRole('button', { name: 'Change password' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /current password is not right/);
    await page.getByLabel('Current password').fill(admin.password);
    await page.getByLabel('New password', { exact: true }).fill('a new long password');
    await page.getByLabel('New password again').fill('a new long password');
    await page.getByRole('button', { name: 'Change password' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /Password changed/);
    admin.password = 'a new long password';
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/admin/sign-in`);
    await signIn();
    await page.waitForURL(`${origin}/admin/apps`);
  });

  test('OAuth: the consent page names the app and what it asks for in plain words; the admin grants; the app calls the API', async () => {
    const client = await startClientApp(origin, sut.store.certificate);
    try {
      await page.goto(`${origin}/admin/apps/new`);
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
      assert.equal(await h1(), 'Grant access to Reports portal?');
      const asked = (await page.locator('#requested-scopes').textContent()) ?? '';
      assert.match(asked, /See catalog/);
      assert.match(asked, /See and change orders/);
      assert.doesNotMatch(asked, /customers/i, 'only what the app asked for');
      await check('18-oauth-consent');
      await page.getByRole('button', { name: 'Allow Reports portal' }).click();
      await page.waitForURL(`${client.url}/callback?**`);
      assert.match((await page.locator('body').textContent()) ?? '', /Connected to the store: \d+ products/);
    } finally {
      await client.close();
    }
  });

  test('every console page ran its script under the CSP, with no errors', () => {
    assert.deepEqual(cspErrors, []);
    console.log(`# pages checked at desktop and 360 px: ${checked.length} (${checked.join(', ')})`);
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
  const scope = 'read_catalog orders';
  let redirectUri = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/connect') {
      const target = new URL('/api/oauth', store);
      target.search = new URLSearchParams({
        client_id: credentials.clientId,
        scope,
        redirect_uri: redirectUri,
        state: 'client-state',
      }).toString();
      res.writeHead(302, { location: target.toString() }).end();
      return;
    }
    if (url.pathname === '/callback') {
      void (async () => {
        const code = url.searchParams.get('code') ?? '';
        const signature = createHash('sha256')
          .update(credentials.secret + code + credentials.clientId + scope + redirectUri.toLowerCase())
          .digest('hex');
        const exchange = await request(new URL('/api/oauth/access_token', store), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_id: credentials.clientId, auth_id: url.searchParams.get('auth_id'), signature }),
          dispatcher,
        });
        const tokens = (await exchange.body.json()) as { access_token?: string };
        const products = await request(new URL('/api/v1/products', store), {
          headers: { 'x-ac-auth-token': tokens.access_token ?? '' },
          dispatcher,
        });
        const list = (await products.body.json()) as { total_count?: number };
        const ok = url.searchParams.get('state') === 'client-state' && products.statusCode === 200;
        res
          .writeHead(ok ? 200 : 500, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><title>Reports portal</title><h1>${ok ? `Connected to the store: ${list.total_count} products` : 'Failed'}</h1>`,
          );
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
