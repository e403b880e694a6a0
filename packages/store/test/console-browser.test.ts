// The admin console in a real browser (Debian's Chromium): the first admin signs in through the form, then each
// section's page is measured at 1280 px, a common laptop width, and the webhook page is read as shown.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sqliteTarget } from './support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`;

describe('the admin console in Chromium', { skip }, () => {
  let sut: StoreUnderTest;
  let browser: Browser;
  let page: Page;
  let origin: string;

  before(async () => {
    sut = await startStoreUnderTest(await sqliteTarget());
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
    page = await (await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(30_000);
    const admin = sut.store.firstStart;
    assert.ok(admin !== undefined, 'the store under test made its first admin');
    await page.goto(`${origin}/admin/sign-in`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await sut?.close();
  });

  test("at 1280 px the top bar is one line on every section's page: brand, sections, API docs, the admin and Sign out", async () => {
    for (const path of ['/admin', '/admin/apps', '/admin/webhooks', '/admin/plan', '/admin/admins', '/admin/account']) {
      await page.goto(`${origin}${path}`);
      const bar = page.locator('header.top .bar');
      const parts = bar.locator('.brand, nav a, .who a, .who button');
      assert.ok(
        (await parts.count()) >= 8,
        `${path}: the brand, four sections, API docs, the admin and Sign out (${(await parts.allInnerTexts()).join(' / ')})`,
      );
      const tops = new Set<number>();
      for (const part of await parts.all()) {
        const box = await part.boundingBox();
        assert.ok(box !== null, `${path}: every part of the bar is drawn`);
        tops.add(Math.round(box.y + box.height / 2));
      }
      // Centred on one line: the middles of the parts lie within a few pixels of each other.
      assert.ok(
        Math.max(...tops) - Math.min(...tops) <= 4,
        `${path}: the bar's parts sit on one line (middles at ${[...tops].join(', ')} px)`,
      );
      const barBox = await bar.boundingBox();
      assert.ok(barBox !== null && barBox.height < 64, `${path}: the bar is ${barBox?.height} px high`);
    }
  });

  test('a webhook without a previous secret says that only its current secret signs', async () => {
    const made = await sut.call('POST', '/webhooks', { body: { event_type: 'ProductCreated', url: 'https://hooks.example.test/console' } });
    assert.equal(made.status, 201, made.text);
    await page.goto(`${origin}/admin/webhooks/${(made.json as { id: number }).id}`);
    const facts = page.locator('dl.facts').filter({ hasText: 'Previous secret' });
    assert.match(await facts.innerText(), /Previous secret\s+none: only the secret above signs/);
    assert.doesNotMatch(await page.locator('main').innerText(), /none signs/);
  });
});
