// Runs inside the DNS lab (started by ../web-timeline-browser.test.ts): `dns-service serve` on SQLite
// holding five finished runs of roll. whose query logs are the lab recording of a zone whose signatures
// stopped being renewed (engine/test/fixtures/rrsig-expiration-plugin.json), ending 400 s to 80 s before
// the expiry; Chromium on /history/roll reads the timeline.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { openDatabase } from '@app/database';
import type { Exchange } from '@app/engine';
import { chromium, type Browser, type Page } from 'playwright-core';
import { finishTest } from '../../src/db/queue.ts';
import type { ServiceSchema } from '../../src/db/tables.ts';
import { loggedQuery, storeQueryLog } from '../../src/db/test-evidence.ts';
import { newTestRow } from '../../src/db/tests.ts';
import type { TestParams } from '../../src/db/test-params.ts';

const bin = new URL('../../bin/dns-service.ts', import.meta.url).pathname;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const recorded = JSON.parse(
  readFileSync(new URL('../../../engine/test/fixtures/rrsig-expiration-plugin.json', import.meta.url), 'utf8'),
) as {
  plugin: { expiration: number };
  exchanges: Exchange[];
};
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
  const dir = mkdtempSync(join(tmpdir(), 'dns-service-web-timeline-'));
  const file = join(dir, 'service.sqlite');
  const config = join(dir, 'backend_config.ini');
  writeFileSync(config, ['[DB]', 'engine = SQLite', '[SQLITE]', `database_file = ${file}`, ''].join('\n'));
  service = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0', '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for await (const line of createInterface({ input: service.stdout! })) {
    origin ||= /JSON-RPC API on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
    if (line.includes('web interface')) break;
  }
  // One test through the API gives the params as the service stores them; the runs are its copies.
  const first = (await rpc('start_domain_test', { domain: 'roll' })).result as string;
  const database = await openDatabase<ServiceSchema>(`sqlite:${file}`);
  const row = await database.db.selectFrom('dh_test').select('params').where('hash_id', '=', first).executeTakeFirstOrThrow();
  await database.db.deleteFrom('dh_test').where('hash_id', '=', first).execute();
  const log = recorded.exchanges.map(loggedQuery);
  for (const before of [400, 320, 240, 160, 80]) {
    const test = newTestRow(JSON.parse(row.params) as TestParams, null);
    await database.db.insertInto('dh_test').values(test).execute();
    await finishTest(database.db, test.hash_id, []);
    const endedAt = new Date((recorded.plugin.expiration - before) * 1000).toISOString();
    await database.db.updateTable('dh_test').set({ ended_at: endedAt, created_at: endedAt }).where('hash_id', '=', test.hash_id).execute();
    await storeQueryLog(database.db, test.hash_id, log);
  }
  await database.close();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 1400 }, locale: 'en-GB', bypassCSP: true });
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

test('the timeline: a lane per DS, per key of each server and per server validity; the expiry alert named', async () => {
  // The runs are from the recording's day: the timeline reads them as they were, whatever the clock says now.
  const timeline = (await rpc('get_dnssec_timeline', { domain: 'roll' })).result as { runs: unknown[]; alerts: { kind: string }[] };
  assert.equal(timeline.runs.length, 5);
  await page.goto(`${origin}/history/roll`);
  const section = page.getByRole('region', { name: 'DNSSEC over time' });
  await section.waitFor();
  const picture = section.getByRole('img', { name: 'DNSSEC over time' });
  await picture.waitFor();
  const labels = await picture.locator('text').allTextContents();
  assert.ok(
    labels.some((l) => /^DS 13\/\d+\/2$/.test(l)),
    labels.join(' | '),
  );
  assert.ok(labels.some((l) => /^DNSKEY 13\/\d+ \(KSK\)$/.test(l)));
  assert.ok(labels.some((l) => /^DNSKEY 13\/\d+ \(ZSK\)$/.test(l)));
  assert.ok(labels.includes('First signature to expire at ns1.roll/203.0.113.251'));
  assert.deepEqual(
    timeline.alerts.map((a) => a.kind),
    ['signature_expiry'],
  );
  const alert = section.getByRole('listitem');
  assert.equal(await alert.count(), 1);
  assert.match(await alert.innerText(), /The signature over roll\. DNSKEY expires at .* validating resolvers answer SERVFAIL/);
  if (process.env.TIMELINE_SCREENSHOT) await section.screenshot({ path: process.env.TIMELINE_SCREENSHOT });

  await page.addScriptTag({ content: axeSource });
  const serious =
    await page.evaluate(`axe.run(document.querySelector('.dnssec-timeline'), { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] })
    .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`);
  assert.deepEqual(serious, []);
});
