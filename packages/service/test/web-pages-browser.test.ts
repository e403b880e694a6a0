// The history and batch pages in Debian's Chromium, against the service on SQLite with an in-process agent whose
// runs are scripted (no DNS): what a page shows, and its layout measured in the browser.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import type { Finding, TestInput } from '@app/engine';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Agent } from '../src/agent/agent.ts';
import { agentConfig, profiles, waitFor } from './agent/agent-fixture.ts';
import { useService } from './rpc-harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const sqlite = (await testDatabaseTargets()).find((t) => t.dialect === 'sqlite');
const skip = !existsSync(CHROMIUM)
  ? `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`
  : sqlite === undefined
    ? 'no SQLite target'
    : false;

/** broken.test gets an ERROR, fine.test only INFO. */
function scriptedRun(input: TestInput): Promise<Finding[]> {
  const finding = (tag: string, level: Finding['level']): Finding => ({
    module: 'BASIC',
    testcase: 'Basic01',
    tag,
    level,
    args: { zone: input.domain, pname: 'test' },
    timestamp: 0,
  });
  return Promise.resolve(
    input.domain.startsWith('broken') ? [finding('HAS_PARENT', 'INFO'), finding('B01_NO_CHILD', 'ERROR')] : [finding('HAS_PARENT', 'INFO')],
  );
}

describe('history and batch pages in Chromium', { skip }, () => {
  const h = useService(sqlite!, (config) => ({ ...config, enableAddApiUser: true }));
  let agent: Agent;
  let browser: Browser;
  let page: Page;
  before(async () => {
    agent = new Agent({
      database: h.service.context.database,
      config: agentConfig(),
      profiles,
      runTests: scriptedRun,
      log: () => undefined,
    });
    agent.start();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
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
    page = await (await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-GB' })).newPage();
    page.setDefaultTimeout(30_000);
  });
  after(async () => {
    await browser?.close();
    await agent?.stop(0);
  });

  test('the batch page gives each finished domain, linked to its report, its overall result, and fits a 360 px phone', async () => {
    assert.equal((await h.call('add_api_user', { username: 'ops', api_key: 'ops-key' })).result, 1);
    const batch = (await h.call('add_batch_job', { username: 'ops', api_key: 'ops-key', domains: ['broken.test', 'fine.test'] }))
      .result as number;
    await waitFor(
      'the batch to finish',
      async () => {
        const status = (await h.call('get_batch_job_result', { batch_id: batch })).result as { nb_finished: number; nb_running: number };
        return status.nb_finished === 2 && status.nb_running === 0;
      },
      60_000,
    );
    await page.goto(`${h.url}/batch/${batch}`);
    const table = page.getByRole('table');
    await table.getByRole('row', { name: /fine\.test/ }).waitFor();
    assert.deepEqual(await table.locator('thead th').allInnerTexts(), ['Domain', 'Overall result']);
    const rows = await Promise.all(
      (await table.locator('tbody tr').all()).map(async (row) => (await row.locator('td').allInnerTexts()).map((text) => text.trim())),
    );
    assert.deepEqual(rows.sort(), [
      ['broken.test', 'Errors found'],
      ['fine.test', 'No problems found'],
    ]);
    const broken = (await h.call('get_test_history', { frontend_params: { domain: 'broken.test' } })).result as { id: string }[];
    assert.equal(
      await table.getByRole('link', { name: 'broken.test' }).getAttribute('href'),
      `/result/${broken[0]?.id}`,
      'the domain links to its report',
    );
    // On a phone the table fits its box: nothing scrolled out of sight.
    await page.setViewportSize({ width: 360, height: 800 });
    const hidden = await page.evaluate<number>(
      `(() => { const wrap = document.querySelector('.table-wrap'); return wrap.scrollWidth - wrap.clientWidth; })()`,
    );
    await page.setViewportSize({ width: 1200, height: 900 });
    assert.ok(hidden <= 0, `the table is ${hidden}px wider than its box at 360 px`);
  });

  test("on the history page the watch's API key field is as tall and wide as the API user field above it", async () => {
    await page.goto(`${h.url}/history/fine.test`);
    const section = page.getByRole('region', { name: 'Scheduled tests' });
    await section.waitFor();
    const box = async (label: string) => {
      const found = await section.getByLabel(label).boundingBox();
      assert.ok(found !== null, `${label} is drawn`);
      return found;
    };
    const [user, key] = [await box('API user'), await box('API key')];
    assert.equal(key.height, user.height, `API key ${key.height}px high, API user ${user.height}px`);
    assert.equal(key.width, user.width, `API key ${key.width}px wide, API user ${user.width}px`);
    assert.ok(key.height >= 40, `at least the 2.5rem of every other field (${key.height}px)`);
  });
});
