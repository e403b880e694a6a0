// The interactive API docs in a real browser (Debian's Chromium): the page loads with nothing fetched from
// anywhere but the store, and "Try it out" calls the API with the token given under Authorize.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sqliteTarget } from './support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';
import { issueTestToken } from './support/test-token.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = resolve(import.meta.dirname, '../../../test-artifacts/store-api-docs');
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`;
if (skip !== false) console.log(`# skipping API docs browser test: ${skip}`);

const sqlite = await sqliteTarget();

describe('API docs in Chromium', { skip }, () => {
  let sut: StoreUnderTest;
  let browser: Browser;
  let page: Page;
  let origin: string;
  const requested: { url: string; headers: Record<string, string> }[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    sut = await startStoreUnderTest(sqlite);
    origin = new URL(sut.api).origin;
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
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1200, height: 900 } });
    page = await context.newPage();
    // Swagger UI is heavy, and these cores are shared with other suites.
    page.setDefaultTimeout(60_000);
    page.on('request', (request) => requested.push({ url: request.url(), headers: request.headers() }));
  });
  after(async () => {
    await browser?.close();
    await sut?.close();
  });

  test('loads from the store alone, and Try it out lists products with the token from Authorize', async () => {
    const made = await sut.call('POST', '/products', { body: { item_name: 'Docs demo kettle', item_number: 'KET-1' } });
    assert.equal(made.status, 201, made.text);
    const token = await issueTestToken(sut.store.app, sut.store.firstStart?.storeId ?? 1, 'read_catalog', 'Docs reader');
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });

    await page.goto(`${origin}/api/v1/docs#/products`);
    // Generous: two cores shared with other suites make Swagger UI's first render slow.
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'Store API' }).waitFor({ timeout: 120_000 });
    const getProducts = page
      .locator('.opblock.opblock-get')
      .filter({ has: page.locator('[data-path="/products"]') })
      .first();
    await getProducts.waitFor();
    await page.screenshot({ path: join(ARTIFACTS, '01-docs.png') });

    await page.locator('.swagger-ui .auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.locator('input[type=text], input[type=password]').first().fill(token);
    await dialog.getByRole('button', { name: 'Apply credentials' }).click();
    await dialog.getByRole('button', { name: 'Remove authorization' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, '02-authorized.png') });
    await dialog.locator('button.btn-done').click();

    // A fresh load straight to the operation (a deep link, by its operationId); the token given above is kept across loads.
    await page.goto(`${origin}/api/v1/docs#/products/getProducts`);
    await page.reload();
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 120_000 });
    await getProducts.locator('.opblock-body').waitFor();
    // The filters are there, one per field, naming their operators.
    await getProducts.locator('tr[data-param-name="item_name"]').waitFor();
    assert.match((await getProducts.locator('tr[data-param-name="item_name"]').textContent()) ?? '', /startwith/);
    await getProducts.getByRole('button', { name: 'Try it out' }).click({ noWaitAfter: true });
    await getProducts.locator('tr[data-param-name="item_name"] input').fill('startwith:docs');
    await getProducts.getByRole('button', { name: 'Execute' }).click({ noWaitAfter: true });
    const status = getProducts.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    await page.screenshot({ path: join(ARTIFACTS, '03-try-it.png'), fullPage: false });
    assert.equal((await status.textContent())?.trim(), '200');
    assert.match(
      (await getProducts.locator('.live-responses-table tbody .response-col_description').first().textContent()) ?? '',
      /Docs demo kettle/,
    );

    const call = requested.find((r) => r.url.startsWith(`${origin}/api/v1/products?`));
    assert.ok(call, 'the browser called the API');
    assert.equal(call.headers['x-ac-auth-token'], token);
    assert.equal(new URL(call.url).searchParams.get('item_name'), 'startwith:docs');
    assert.deepEqual(
      [...new URL(call.url).searchParams.keys()].filter((k) => !['page', 'count'].includes(k)),
      ['item_name'],
      'only the filter typed in is sent',
    );
    const elsewhere = requested.filter((r) => !r.url.startsWith(`${origin}/`) && !r.url.startsWith('data:'));
    assert.deepEqual(
      elsewhere.map((r) => r.url),
      [],
      'nothing is fetched from anywhere but the store',
    );
    assert.deepEqual(violations, [], 'the page works within its Content-Security-Policy');
  });

  test('Try it out on place_order starts from the documented example, not {}', async () => {
    await page.goto(`${origin}/api/v1/docs?urls.primaryName=carts`);
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 120_000 });
    const placeOrder = page.locator('.opblock-post', { has: page.locator('.opblock-summary-path[data-path="/carts/{id}/place_order"]') });
    await placeOrder.locator('.opblock-summary').click();
    await placeOrder.getByRole('button', { name: 'Try it out' }).click({ noWaitAfter: true });
    const body = placeOrder.locator('textarea.body-param__text');
    await body.waitFor();
    const example = JSON.parse(await body.inputValue()) as { customer?: { email?: string }; billing_address?: object };
    assert.equal(example.customer?.email, 'jdoe@example.com');
    assert.ok(example.billing_address !== undefined);
    await placeOrder.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, '04-place-order-example.png'), fullPage: false });
  });
});
