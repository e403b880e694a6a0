// Runs inside the DNS lab (started by ../web-chain-browser.test.ts): `dns-service serve --with-agent` and Chromium
// opening the Chain view of a broken chain's report (wrongds.test: the parent's DS matches no key) at 1200 and
// 360 px: the picture, a node chosen by click and by keyboard with its details and findings, axe on both widths,
// print and the SVG export; then the same report with hostile names put into get_test_chain's reply on its way
// to the page (no lab zone can hold such names), which must show as text. Screenshots go to test-artifacts/service-web-chain/.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

const bin = new URL('../../bin/dns-service.ts', import.meta.url).pathname;
const ARTIFACTS = resolve(import.meta.dirname, '../../../../test-artifacts/service-web-chain');
const REPORT_TIMEOUT = 240_000;
const DESKTOP = { width: 1200, height: 900 };
const PHONE = { width: 360, height: 800 };
const HOSTILE = '<img src=x onerror="window.__owned=1">';
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let service: ChildProcess;
let origin = '';
let browser: Browser;
let page: Page;
let testId = '';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const inPage = <T = unknown>(expression: string) => page.evaluate<T>(expression);

async function rpc<T = unknown>(method: string, params: unknown): Promise<T> {
  const response = await fetch(origin, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const reply = (await response.json()) as { result?: T; error?: unknown };
  assert.equal(reply.error, undefined, `${method}: ${JSON.stringify(reply.error)}`);
  return reply.result as T;
}

/** A full-page screenshot, and axe-core on the page: no violation at all of WCAG 2.1 A/AA or best practice. */
async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  await page.addScriptTag({ content: axeSource });
  const violations = await inPage<
    { id: string; impact: string; targets: string[] }[]
  >(`axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
  console.log(`# axe ${name}: ${violations.length === 0 ? 'no violations' : violations.map((v) => `${v.impact} ${v.id}`).join(', ')}`);
  assert.deepEqual(violations, [], name);
}

const chainTab = () => page.getByRole('tab', { name: 'Chain' });
const details = () => page.locator('#chain-details');

async function openChain(): Promise<void> {
  await page.goto(`${origin}/result/${testId}`);
  await page.getByRole('heading', { level: 1, name: 'Report for wrongds.test' }).waitFor({ timeout: REPORT_TIMEOUT });
  await chainTab().click();
  await page.locator('svg.chain-picture').waitFor();
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'dns-service-chain-'));
  service = spawn(process.execPath, [bin, 'serve', '--with-agent', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, DATA_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for await (const line of createInterface({ input: service.stdout! })) {
    origin ||= /JSON-RPC API on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
    if (line.includes('dns-service: agent')) break;
  }
  assert.ok(origin, 'the service announced its address');
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  // bypassCSP lets the test inject axe-core; the page itself runs under its strict CSP.
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', acceptDownloads: true, bypassCSP: true });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (error) => console.log(`# page error: ${error.message}`));
  testId = await rpc<string>('start_domain_test', { domain: 'wrongds.test' });
  for (let progress = 0; progress < 100;) {
    await new Promise((done) => setTimeout(done, 500));
    progress = await rpc<number>('test_progress', { test_id: testId });
  }
});

after(async () => {
  await browser?.close();
  if (service?.exitCode === null) {
    service.kill('SIGTERM');
    await once(service, 'exit');
  }
});

describe('the Chain view of a broken chain', () => {
  test('its code is not part of a first page: the report fetches it', { timeout: REPORT_TIMEOUT }, async () => {
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await page.goto(origin);
    await page.getByLabel('Domain name').waitFor();
    assert.ok(
      asked.some((path) => path.endsWith('/report.ts')) && !asked.some((path) => /\/chain-[a-z]+\.ts$/.test(path)),
      asked.join(' '),
    );
    await openChain();
    assert.ok(asked.some((path) => path.endsWith('/views/chain-view.ts')));
    page.removeAllListeners('request');
  });

  test(
    'at 1200 px: the zones from the root down, the bogus delegation and its DS, nothing chosen yet',
    { timeout: REPORT_TIMEOUT },
    async () => {
      await openChain();
      assert.equal(await chainTab().getAttribute('aria-selected'), 'true');
      assert.equal(await page.locator('#findings-panel').isVisible(), false, 'the findings give way to the chain');
      const zone = page.getByRole('button', { name: 'wrongds.test — BOGUS, Zone', exact: true });
      await zone.waitFor();
      await page.getByRole('button', { name: '. (root), Zone', exact: true }).waitFor();
      await page.getByRole('button', { name: 'test — INSECURE, Zone', exact: true }).waitFor();
      assert.equal(await page.getByRole('button', { name: /^DS 13\/\d+\/2 INVALID_DIGEST, Zone test$/ }).count(), 1);
      // P-256 keys (algorithm 13): 256 bits, as the engine's SVG says too.
      assert.equal(await page.getByRole('button', { name: /^DNSKEY 13\/\d+ KSK, 256 bits, Zone wrongds\.test$/ }).count(), 1);
      assert.equal(await page.getByRole('button', { name: /^DNSKEY 13\/\d+ ZSK, 256 bits, Zone wrongds\.test$/ }).count(), 1);
      assert.ok((await page.locator('svg.chain-picture path.chain-digest').count()) >= 1, 'an edge from the DS to the key it names');
      assert.ok((await page.locator('svg.chain-picture path.chain-signs').count()) >= 3, 'signature edges');
      await page.getByText('Choose a node in the picture').waitFor();
      const width = await inPage<number>(`document.querySelector('svg.chain-picture').getBoundingClientRect().width`);
      assert.ok(width > 400, `the picture uses the room it has at 1200 px (${width} px)`);
      await shot('chain-1200');
    },
  );

  test('clicking the DS shows its id, status, digest and servers, and the findings about it', async () => {
    await page.getByRole('button', { name: /^DS 13\/\d+\/2 INVALID_DIGEST, Zone test$/ }).click();
    await details()
      .getByRole('heading', { name: /^Details of DS 13\/\d+\/2$/ })
      .waitFor();
    const text = await details().innerText();
    assert.match(text, /Status\s+INVALID_DIGEST/);
    assert.match(text, /For the zone\s+wrongds\.test/);
    assert.match(text, /Digest\s+[0-9A-F]{64}\s/, 'a SHA-256 digest in hex, as the DS records suggested elsewhere in the report');
    assert.match(text, /DIGEST_INVALID/);
    assert.match(text, /Servers\s+198\.51\.100\.11/);
    const findings = details().locator('.finding');
    assert.ok((await findings.count()) >= 1, 'findings about the DS');
    assert.match(await findings.allInnerTexts().then((t) => t.join('\n')), /DNSSEC0?2|DS/);
    assert.equal(await page.getByRole('button', { name: /^DS 13\/\d+\/2/ }).getAttribute('aria-pressed'), 'true');
    await shot('chain-1200-ds');
  });

  test('a key chosen with the keyboard (Tab to it, Enter) shows tag, algorithm, flags, size, its RRSIGs with their dates', async () => {
    const ksk = page.getByRole('button', { name: /^DNSKEY 13\/\d+ KSK/ });
    await ksk.focus();
    await page.keyboard.press('Enter');
    await details()
      .getByRole('heading', { name: /^Details of DNSKEY 13\/\d+$/ })
      .waitFor();
    const text = await details().innerText();
    assert.match(text, /Algorithm\s+13/);
    assert.match(text, /Key tag\s+\d+/);
    assert.match(text, /Flags\s+257 \(KSK\)/);
    assert.match(text, /Size\s+256 bits/);
    const signature = await details().locator('.chain-signatures li').first().innerText();
    assert.match(
      signature,
      /Signed by\s+wrongds\.test\.\/13\/\d+\s+Status\s+VALID\s+Valid from\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s+Valid until\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s+Servers\s+\S+/,
    );
    assert.ok((await details().locator('.finding').count()) >= 1, 'the DS02 findings name this key');
    // The zone itself: its delegation status, the problem and its servers.
    await page.getByRole('button', { name: 'wrongds.test — BOGUS, Zone', exact: true }).click();
    const zone = await details().innerText();
    assert.match(zone, /Delegation\s+BOGUS/);
    assert.match(zone, /ns1\.wrongds\.test\s+192\.0\.2\.70/);
  });

  test('at 360 px: the picture fits the screen, texts keep their size, a node still opens its details', async () => {
    await page.setViewportSize(PHONE);
    const overflow = await inPage<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than a 360px screen`);
    // The view lays itself out again when its resize observer reports the new width, a frame or more after the
    // viewport changed: wait for that (or give up after a while and let the assertions below say what is wrong).
    const picture = `(() => { const svg = document.querySelector('svg.chain-picture'); return svg !== null && svg.viewBox.baseVal.width / svg.getBoundingClientRect().width < 1.05; })()`;
    await page.waitForFunction(picture, undefined, { timeout: 5000 }).catch(() => undefined);
    const box = await inPage<{ width: number; viewBox: number }>(
      `(() => { const svg = document.querySelector('svg.chain-picture'); return { width: svg.getBoundingClientRect().width, viewBox: svg.viewBox.baseVal.width }; })()`,
    );
    assert.ok(box.width <= 360, `the picture is ${box.width} px wide`);
    assert.ok(box.viewBox / box.width < 1.05, `drawn for its width, not shrunk (${box.viewBox} units in ${box.width} px)`);
    await page.getByRole('button', { name: /^SOA RRset signed, Zone wrongds\.test$/ }).click();
    await details().getByRole('heading', { name: 'Details of SOA RRset' }).waitFor();
    assert.match(await details().innerText(), /wrongds\.test\. 3600 IN SOA ns1\.wrongds\.test\./);
    await page.locator('.chain-view').screenshot({ path: join(ARTIFACTS, 'chain-360-view.png') });
    await shot('chain-360');
    await page.setViewportSize(DESKTOP);
  });

  test('the SVG export is the picture with its legend; print shows the findings and the chain', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Chain (SVG)' }).click()]);
    assert.match(download.suggestedFilename(), /^wrongds\.test-[0-9a-f]{16}-chain\.svg$/);
    const svg = readFileSync(await download.path(), 'utf8');
    assert.match(svg, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg, /INVALID_DIGEST/);
    assert.match(svg, /Legend/);
    assert.doesNotMatch(svg, /<script|chain-focus/);
    // A file of its own: well-formed XML, and an image a browser draws.
    const drawn = await inPage<{ error: string; width: number }>(`(async (text) => {
      const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
      const image = new Image();
      image.src = 'data:image/svg+xml;base64,' + btoa(unescape(encodeURIComponent(text)));
      await image.decode();
      return { error: parsed.querySelector('parsererror')?.textContent ?? '', width: image.naturalWidth };
    })(${JSON.stringify(svg)})`);
    assert.deepEqual([drawn.error, drawn.width > 300], ['', true], 'the SVG file parses and draws');

    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('.view-tabs').isVisible(), false);
    assert.equal(await page.locator('#findings-panel').isVisible(), true, 'the findings print though the chain was shown');
    assert.equal(await page.locator('svg.chain-picture').isVisible(), true);
    await page.screenshot({ path: join(ARTIFACTS, 'chain-print.png'), fullPage: true });
    await page.emulateMedia({ media: 'screen' });
    // And the other way round: the findings shown, the chain still prints.
    await page.getByRole('tab', { name: 'Findings' }).click();
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('svg.chain-picture').isVisible(), true, 'the chain prints though the findings were shown');
    await page.emulateMedia({ media: 'screen' });
  });

  test('the tabs follow the arrow keys; the chain view has an address of its own', async () => {
    await page.getByRole('tab', { name: 'Findings' }).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await chainTab().getAttribute('aria-selected'), 'true');
    assert.equal(await inPage<string>('document.activeElement.id'), 'tab-chain');
    assert.equal(new URL(page.url()).hash, '#chain');
    await page.reload();
    await page.locator('svg.chain-picture').waitFor();
    assert.equal(await chainTab().getAttribute('aria-selected'), 'true', 'a reload keeps the chain view');
    await page.getByRole('tab', { name: 'Findings' }).click();
    assert.equal(new URL(page.url()).hash, '');
    assert.match(page.url(), /\/result\/[0-9a-f]{16}$/);
  });
});

describe('names from DNS data are text, never markup', () => {
  test('hostile zone, server and digest texts in get_test_chain show literally, run nothing, and stay escaped in the SVG', async () => {
    // The reply is changed on its way to the page: every lab zone must be servable, so none can hold these names.
    await page.route(origin + '/', async (route) => {
      const body = route.request().postData() ?? '';
      if (route.request().method() !== 'POST' || !body.includes('"get_test_chain"')) return route.continue();
      const response = await route.fetch();
      const reply = (await response.json()) as {
        result: Record<
          string,
          { zone?: { servers?: Record<string, unknown> }; delegation?: { ds?: { digest: string; servers: string[] }[] } }
        >;
      };
      const hostile: Record<string, unknown> = {};
      for (const [name, zone] of Object.entries(reply.result)) {
        const servers = zone.zone?.servers ?? {};
        if (zone.zone)
          zone.zone.servers = Object.fromEntries(Object.entries(servers).map(([server, addresses]) => [`${HOSTILE}.${server}`, addresses]));
        for (const ds of zone.delegation?.ds ?? []) {
          ds.digest = `</code><script>window.__owned=2</script>`;
          ds.servers = [`"><svg onload="window.__owned=3">`];
        }
        hostile[name === 'wrongds.test.' ? `${HOSTILE}.wrongds.test.` : name] = zone;
      }
      return route.fulfill({ response, json: { ...reply, result: hostile } });
    });
    await openChain();
    const zone = page.getByRole('button', { name: new RegExp(`^${literally(HOSTILE)}\\.wrongds\\.test — BOGUS, Zone$`) });
    await zone.click();
    await details()
      .getByRole('heading', { name: `Details of ${HOSTILE}.wrongds.test` })
      .waitFor();
    assert.match(await details().innerText(), new RegExp(`${literally(HOSTILE)}\\.ns1\\.wrongds\\.test`));
    await page.getByRole('button', { name: /^DS 13\/\d+\/2/ }).click();
    assert.match(await details().innerText(), /<\/code><script>window\.__owned=2<\/script>/);
    assert.match(await details().innerText(), /"><svg onload="window\.__owned=3">/);
    assert.equal(await inPage('window.__owned'), undefined, 'no script ran');
    assert.equal(
      await page.locator('img[src="x"], #chain-details script, #chain-details svg').count(),
      0,
      'no element was made from DNS data',
    );
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Chain (SVG)' }).click()]);
    const svg = readFileSync(await download.path(), 'utf8');
    assert.ok(
      svg.includes('&lt;img src=x onerror="window.__owned=1"&gt;') || svg.includes('&lt;img'),
      'the hostile name is escaped in the file',
    );
    assert.doesNotMatch(svg, /<img|<script/);
    await page.locator('.chain-view').screenshot({ path: join(ARTIFACTS, 'chain-hostile-view.png') });
    await shot('chain-hostile');
    await page.unroute(origin + '/');
  });
});

describe('a test without a chain', () => {
  test('says that none was kept, and offers no SVG to export', async () => {
    // As the service answers for a test from before chains were kept, or whose queries could not be read.
    await page.route(origin + '/', async (route) => {
      if (route.request().method() !== 'POST' || !(route.request().postData() ?? '').includes('"get_test_chain"')) return route.continue();
      return route.fulfill({ json: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'No chain for this test' } } });
    });
    await page.goto(`${origin}/result/${testId}#chain`);
    await page.reload(); // the page was at this report already: going to its #chain alone loads nothing
    await page.getByText('No chain was kept for this test').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Chain (SVG)' }).count(), 0);
    await page.unroute(origin + '/');
  });
});
