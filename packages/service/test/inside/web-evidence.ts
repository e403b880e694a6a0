// Runs inside the DNS lab (started by ../web-evidence-browser.test.ts): `dns-service serve --with-agent` with a short
// reuse window, and Chromium reading what a report shows as evidence: each test case's queries and replies, links to
// the specifications, DS records for a DS mismatch, exports with tags and arguments, the notice of a reused result,
// progress that says what it waits for, a domain that does not exist, and a case-blind comparison with parameters.
// Screenshots go to test-artifacts/service-web-evidence/.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

const bin = new URL('../../bin/dns-service.ts', import.meta.url).pathname;
const ARTIFACTS = resolve(import.meta.dirname, '../../../../test-artifacts/service-web-evidence');
const REUSE_SECONDS = 25;
const REPORT_TIMEOUT = 240_000;

let service: ChildProcess;
let origin = '';
let browser: Browser;
let page: Page;

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

// The form starts a test on the extended profile (Zonemaster's test cases and ours beyond them), as a visitor leaves it.
async function startTest(domain: string): Promise<string> {
  await page.goto(origin);
  await page.getByLabel('Domain name').fill(domain);
  await page.getByRole('button', { name: 'Start the test' }).click();
  await page.waitForURL(/\/result\/[0-9a-f]{16}$/);
  return page.url().split('/').pop() ?? '';
}

const reportHeading = (domain: string) => page.getByRole('heading', { level: 1, name: `Report for ${domain}` });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A full-page screenshot, and axe-core on the page: no serious or critical violation. */
async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate<
    { id: string; impact: string }[]
  >(`axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact })))`);
  assert.deepEqual(
    violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
    [],
    name,
  );
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'dns-service-evidence-'));
  const config = join(dir, 'backend_config.ini');
  writeFileSync(config, `[ZONEMASTER]\nage_reuse_previous_test = ${REUSE_SECONDS}\n`);
  service = spawn(process.execPath, [bin, 'serve', '--with-agent', '--listen', '127.0.0.1:0', '--config', config], {
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
  const context = await browser.newContext({
    viewport: { width: 1200, height: 800 },
    locale: 'en-GB',
    acceptDownloads: true,
    bypassCSP: true,
  });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (error) => console.log(`# page error: ${error.message}`));
});

after(async () => {
  await browser?.close();
  if (service?.exitCode === null) {
    service.kill('SIGTERM');
    await once(service, 'exit');
  }
});

describe('the report shows its evidence', () => {
  let healthyId = '';

  test('progress counts the test cases done and names the server it waits for', { timeout: REPORT_TIMEOUT }, async () => {
    await startTest('connectivity-partial.test');
    // One server drops SOA over UDP: the run waits for it (5 s per try), and the page says so meanwhile.
    await page.getByText(/^\d+ of \d+ test cases done$/).waitFor({ timeout: 60_000 });
    const waiting = page.getByText(/^Waiting for \S+ to answer SOA connectivity-partial\.test\.? \(\d+ s so far, for \w+\)$/).first();
    await waiting.waitFor({ timeout: 60_000 });
    await shot('progress-waiting');
    await reportHeading('connectivity-partial.test').waitFor({ timeout: REPORT_TIMEOUT });
  });

  test(
    'each test case links to its specification and lists its queries and the replies, collapsed until opened',
    { timeout: REPORT_TIMEOUT },
    async () => {
      healthyId = await startTest('healthy.test');
      await reportHeading('healthy.test').waitFor({ timeout: REPORT_TIMEOUT });
      await page.getByRole('button', { name: /^BASIC/ }).click();
      const basic01 = page.locator('section.testcase', { has: page.getByRole('link', { name: 'Basic01', exact: true }) });
      assert.equal(
        await basic01.getByRole('link', { name: 'Basic01', exact: true }).getAttribute('href'),
        'https://github.com/zonemaster/zonemaster/blob/master/docs/public/specifications/tests/Basic-TP/basic01.md',
      );
      const log = basic01.locator('details.query-log');
      assert.equal(await log.getAttribute('open'), null, 'collapsed by default');
      const summary = await log.locator('summary').innerText();
      assert.match(summary, /^\d+ quer(?:y|ies) sent, with the repl(?:y|ies)$/);
      await log.locator('summary').click();
      const first = log.locator('li.query').first();
      await first.waitFor();
      assert.match(
        await first.locator('.query-line').innerText(),
        /^\S+ [A-Z0-9]+ → \S+ (?:UDP|TCP), \d+ ms: (?:NOERROR|NXDOMAIN|REFUSED|SERVFAIL|no reply)/,
      );
      const records = await log.locator('pre.records').allInnerTexts();
      assert.ok(
        records.some((text) => /\bIN (?:NS|SOA|A|DS)\b/.test(text)),
        `the records each server answered: ${records.slice(0, 2).join('\n')}`,
      );
      const shownCount = Number(/^(\d+)/.exec(summary)?.[1]);
      assert.equal(await log.locator('li.query').count(), shownCount, 'as many queries listed as the summary says');
      await shot('report-query-log');
    },
  );

  test('the DS records suggested for a zone are the ones its parent publishes when they match', async () => {
    const evidence = await rpc<{ ds_suggestion: { keytag: number; digtype: number; digest: string }[] }>('get_test_evidence', {
      id: healthyId,
    });
    const parent = await rpc<{ ds_list: { keytag: number; digtype: number; digest: string }[] }>('get_data_from_parent_zone', {
      domain: 'healthy.test',
    });
    assert.ok(parent.ds_list.length > 0);
    for (const ds of parent.ds_list) {
      assert.ok(
        evidence.ds_suggestion.some(
          (s) => s.keytag === Number(ds.keytag) && s.digtype === Number(ds.digtype) && s.digest === ds.digest.toUpperCase(),
        ),
        `the parent's DS ${ds.keytag} is among the suggestions`,
      );
    }
  });

  test('a DS mismatch shows the DS records that would match, ready to paste', { timeout: REPORT_TIMEOUT }, async () => {
    await startTest('wrongds.test');
    await reportHeading('wrongds.test').waitFor({ timeout: REPORT_TIMEOUT });
    const section = page.getByRole('region', { name: "DS records that match the zone's keys" });
    await section.waitFor();
    const pasted = await section.locator('pre.records').innerText();
    assert.match(pasted, /^wrongds\.test\. IN DS \d+ 13 2 [0-9A-F]{64}$/m);
    const parent = await rpc<{ ds_list: { keytag: number; digtype: number; digest: string }[] }>('get_data_from_parent_zone', {
      domain: 'wrongds.test',
    });
    const suggested = [...pasted.matchAll(/IN DS (\d+) \d+ (\d+) ([0-9A-F]+)$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    assert.ok(suggested.length > 0);
    for (const ds of parent.ds_list)
      assert.ok(
        !suggested.includes(`${ds.keytag} ${ds.digtype} ${ds.digest.toUpperCase()}`),
        'the suggestion is not the wrong DS the parent has',
      );
    await shot('report-ds-suggestion');

    // The exports carry each finding's tag and arguments beside its text.
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'JSON' }).click()]);
    const exported = JSON.parse(readFileSync(await json.path(), 'utf8')) as {
      results: { testcase: string; tag: string; args: Record<string, unknown>; message: string }[];
    };
    assert.ok(
      exported.results.length > 0 && exported.results.every((r) => typeof r.tag === 'string' && r.tag !== '' && typeof r.args === 'object'),
    );
    assert.ok(exported.results.some((r) => r.testcase.toUpperCase() === 'DNSSEC02' && Object.keys(r.args).length > 0));
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV' }).click()]);
    const lines = readFileSync(await csv.path(), 'utf8').split('\r\n');
    assert.equal(lines[0], '\uFEFFmodule,testcase,level,tag,message,ns,args');
    assert.ok(
      lines.slice(1).some((line) => /^DNSSEC,DNSSEC02,\w+,[A-Z0-9_]+,/.test(line)),
      'DNSSEC02 rows carry their tag',
    );
  });

  test(
    'testing again within the reuse window says a recent result was reused, and when a new run will be made',
    { timeout: REPORT_TIMEOUT },
    async () => {
      await delay(3000); // clearly later than the first run, whose time the service gives in whole seconds
      const again = await startTest('healthy.test');
      assert.equal(again, healthyId, 'the service reused the recent test');
      await reportHeading('healthy.test').waitFor();
      const notice = page.locator('.notice');
      await notice.waitFor();
      assert.match(
        await notice.innerText(),
        /^This is the result of the same test from .+, reused: .+ (?:A new run is made from .+\.|Testing again now makes a new run\.)$/,
      );
      await shot('report-reused');
    },
  );

  test(
    "a comparison of two runs of an unchanged zone shows no change, with each run's parameters; so does the history",
    { timeout: REPORT_TIMEOUT },
    async () => {
      const expired = await rpc<{ reused_until: string }>('get_test_evidence', { id: healthyId });
      await delay(Math.max(0, Date.parse(expired.reused_until) - Date.now()) + 1500);
      const fresh = await startTest('healthy.test');
      assert.notEqual(fresh, healthyId, 'after the window, a new run');
      await reportHeading('healthy.test').waitFor({ timeout: REPORT_TIMEOUT });
      assert.equal(await page.locator('.notice').count(), 0, 'a new run has no reuse notice');
      // Nameserver08 asks with a randomly cased name and quotes it: the two runs differ in case only, which is no change.
      type Results = { results: { message: string }[] };
      const [earlier, later] = await Promise.all([healthyId, fresh].map((id) => rpc<Results>('get_test_results', { id, language: 'en' })));
      assert.ok(
        earlier.results.some(
          (r, i) => r.message !== later.results[i]?.message && r.message.toLowerCase() === later.results[i]?.message.toLowerCase(),
        ),
        'the runs quote a name in different case',
      );
      await page.goto(`${origin}/compare/${healthyId}/${fresh}`);
      await page.getByRole('heading', { level: 1, name: 'Changes for healthy.test' }).waitFor();
      assert.equal(
        await page.getByRole('heading', { name: 'Findings that appeared (0)' }).count(),
        1,
        await page.locator('main').innerText(),
      );
      assert.equal(await page.getByRole('heading', { name: 'Findings that went away (0)' }).count(), 1);
      const sides = await page.locator('.compare-sides .run-parameters').allInnerTexts();
      assert.equal(sides.length, 2);
      for (const side of sides) assert.match(side, /^Profile: extended · IP versions: IPv4, IPv6$/);
      await shot('compare-unchanged');
      await page.goto(`${origin}/history/healthy.test`);
      await page.locator('.history-table .run-parameters').first().waitFor();
      assert.match(
        await page.locator('.history-table .run-parameters').first().innerText(),
        /^Profile: extended · IP versions: IPv4, IPv6$/,
      );
      await shot('history-parameters');
    },
  );

  test(
    'a domain that does not exist reads as not delegated, and the summing-up finding comes after what it sums up',
    { timeout: REPORT_TIMEOUT },
    async () => {
      await startTest('nosuchdomain.test');
      await reportHeading('nosuchdomain.test').waitFor({ timeout: REPORT_TIMEOUT });
      assert.equal(await page.locator('.report-meta .kind').innerText(), 'No delegation found');
      await page.getByRole('button', { name: 'Expand all' }).click();
      assert.ok((await page.getByRole('heading', { level: 4, name: /^Not met: A parent zone delegates the domain/ }).count()) > 0);
      const modules = await page.locator('section.module .module-name').allInnerTexts();
      assert.ok(modules.indexOf('BASIC') < modules.indexOf('SYSTEM'), `modules in order ${modules.join(', ')}`);
      await shot('report-nonexistent');
    },
  );
});
