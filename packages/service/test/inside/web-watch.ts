// Runs inside the DNS lab (started by ../web-watch-browser.test.ts): `dns-service serve` on SQLite with
// an API user, and Chromium on /history/single.test adding, listing and removing a watch.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

const bin = new URL('../../bin/dns-service.ts', import.meta.url).pathname;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let service: ChildProcess;
let origin = '';
let browser: Browser;
let page: Page;

async function rpc(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
  const response = await fetch(origin, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: unknown };
}

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dns-service-web-watch-'));
  const config = join(dir, 'backend_config.ini');
  writeFileSync(
    config,
    [
      '[DB]',
      'engine = SQLite',
      '[SQLITE]',
      `database_file = ${join(dir, 'service.sqlite')}`,
      '[RPCAPI]',
      'enable_add_api_user = true',
      '',
    ].join('\n'),
  );
  service = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0', '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for await (const line of createInterface({ input: service.stdout! })) {
    origin ||= /JSON-RPC API on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
    if (line.includes('web interface')) break;
  }
  assert.deepEqual((await rpc('add_api_user', { username: 'ops', api_key: 'ops-key' })).result, 1);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-GB', bypassCSP: true });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
});

after(async () => {
  await browser?.close();
  if (service?.exitCode === null) {
    service.kill('SIGTERM');
    await once(service, 'exit');
  }
});

test('an API user sees no watch, adds one (secret shown once), sees it listed, removes it; wrong key and bad fields are named', async () => {
  await page.goto(`${origin}/history/single.test`);
  const section = page.getByRole('region', { name: 'Scheduled tests' });
  await section.waitFor();
  await section.getByLabel('API user').fill('ops');
  await section.getByLabel('API key').fill('wrong');
  await section.getByRole('button', { name: 'Show the watches' }).click();
  await section.getByRole('alert').getByText('User not authorized to use watches').waitFor();

  await section.getByLabel('API key').fill('ops-key');
  await section.getByRole('button', { name: 'Show the watches' }).click();
  await section.getByText('This user has no watch on this domain.').waitFor();

  await section.getByLabel('Schedule').fill('weekly');
  await section.getByLabel('Webhook address (https)').fill('http://hooks.example.org/dns');
  await section.getByRole('button', { name: 'Add a watch' }).click();
  await section.getByText('Must be an https:// address').waitFor();
  assert.equal(await section.getByLabel('Schedule').getAttribute('aria-invalid'), 'true');

  await section.getByLabel('Schedule').fill('daily 03:00');
  await section.getByLabel('Webhook address (https)').fill('https://hooks.example.org/dns');
  await section.getByRole('button', { name: 'Add a watch' }).click();
  const secret = /Webhook secret, shown only now: (\S+)/.exec(await section.getByRole('status').innerText())?.[1];
  assert.match(secret ?? '', /^[A-Za-z0-9_-]{32}$/);
  const row = section.getByRole('row', { name: /daily 03:00/ });
  await row.waitFor();
  assert.match(await row.innerText(), /https:\/\/hooks\.example\.org\/dns/);
  const listed = (await rpc('watch_list', { username: 'ops', api_key: 'ops-key' })).result as {
    watches: { domain: string; language: string }[];
  };
  assert.deepEqual(
    listed.watches.map((w) => [w.domain, w.language]),
    [['single.test', 'en']],
  );

  await page.addScriptTag({ content: axeSource });
  const serious =
    await page.evaluate(`axe.run(document.querySelector('.watches'), { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] })
    .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`);
  assert.deepEqual(serious, []);

  await section.getByRole('button', { name: 'Remove the watch daily 03:00' }).click();
  await section.getByText('This user has no watch on this domain.').waitFor();
  assert.deepEqual((await rpc('watch_list', { username: 'ops', api_key: 'ops-key' })).result, { watches: [] });
});
