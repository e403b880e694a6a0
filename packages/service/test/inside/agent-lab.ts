// Runs inside the DNS lab (started by ../agent-lab.test.ts): the service as `npm start` runs it,
// with its agent, on SQLite; tests are started and followed over HTTP only.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { scrape } from '../prometheus-scrape.ts';
import { assertValid } from '../results-schema.ts';

const bin = new URL('../../bin/dns-service.ts', import.meta.url).pathname;
let service: ChildProcess;
let url = '';
let nextId = 1;

async function ok(method: string, params: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const reply = (await response.json()) as { result?: unknown; error?: unknown };
  assert.equal(reply.error, undefined, `${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dns-service-agent-lab-'));
  service = spawn(process.execPath, [bin, 'serve', '--with-agent', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, DATA_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: service.stdout! });
  for await (const line of lines) {
    url ||= /JSON-RPC API on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
    if (line.includes('dns-service: agent')) break;
  }
  assert.ok(url, 'the API announced its address');
});

after(async () => {
  if (service.exitCode === null) {
    service.kill('SIGTERM');
    const [code] = (await once(service, 'exit')) as [number | null];
    assert.equal(code, 0, 'stops cleanly on SIGTERM');
  }
});

test('started tests progress to 100 and have the engine results, in the language asked for', async () => {
  const ids = await Promise.all(
    ['single.test', 'healthy.test'].map(async (domain) => (await ok('start_domain_test', { domain })) as string),
  );
  for (const id of ids) {
    const seen: number[] = [];
    const deadline = Date.now() + 60_000;
    while (seen.at(-1) !== 100) {
      assert.ok(Date.now() < deadline, `test ${id} finishes (progress so far ${seen.join(' ')})`);
      seen.push((await ok('test_progress', { test_id: id })) as number);
      await delay(50);
    }
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
      'progress never goes down',
    );
    const results = (await ok('get_test_results', { id, language: 'fr' })) as {
      results: { module: string; testcase: string; message: string }[];
    };
    assert.ok(
      results.results.some((r) => r.testcase === 'Basic01'),
      JSON.stringify(results.results),
    );
    assert.ok(!results.results.some((r) => r.module === 'BACKEND'), 'the run ended normally');
  }
});

test('finished tests appear in the history with their verdict', async () => {
  const history = (await ok('get_test_history', { frontend_params: { domain: 'healthy.test' } })) as { overall_result: string }[];
  assert.equal(history.length, 1);
  assert.ok(['ok', 'warning', 'error', 'critical'].includes(history[0]?.overall_result ?? ''));
});

test("the agent stores the chain of a run: get_test_chain gives healthy.test SECURE, in grok's shape", async () => {
  const [entry] = (await ok('get_test_history', { frontend_params: { domain: 'healthy.test' } })) as { id: string }[];
  const chain = (await ok('get_test_chain', { id: entry.id })) as Record<
    string,
    { delegation?: { status: string; ds?: { status: string }[] }; dnskey?: { id: string }[] }
  >;
  assert.deepEqual(Object.keys(chain), ['.', 'test.', 'healthy.test.']);
  assert.equal(chain['healthy.test.']?.delegation?.status, 'SECURE');
  assert.ok(chain['healthy.test.']?.delegation?.ds?.every((d) => d.status === 'VALID'));
  assert.ok((chain['healthy.test.']?.dnskey?.length ?? 0) >= 2);
});

test('/metrics counts the real engine run: tests finished, DNS queries sent; /readyz sees the agent', async () => {
  const metrics = await scrape(url);
  assert.equal(metrics.value('dns_health_tests_started_total'), 2);
  assert.equal(metrics.count('dns_health_test_duration_seconds'), 2);
  const queries = metrics.value('dns_health_dns_queries_total');
  assert.ok(queries > 20, `the engine sent ${queries} queries`);
  assert.ok(metrics.value('dns_health_dns_queries_timed_out_total') < queries);
  assert.equal(metrics.value('dns_health_agents_alive'), 1);
  assert.equal((await fetch(new URL('/readyz', url))).status, 200);
});

test('real results match docs/results.schema.json: get_test_results and get_test_report', async () => {
  const [entry] = (await ok('get_test_history', { frontend_params: { domain: 'healthy.test' } })) as { id: string }[];
  assert.ok(entry);
  assertValid('service_results', await ok('get_test_results', { id: entry.id, language: 'nb' }));
  const report = (await ok('get_test_report', { test_id: entry.id, language: 'nb' })) as {
    findings: { testcase: string; tag: string }[];
    elapsed: number;
  };
  assertValid('service_report', report);
  assert.ok(
    report.findings.some((f) => f.testcase === 'Basic01' && /^[A-Z0-9_]+$/.test(f.tag)),
    'Basic01 is among the findings, with its tag',
  );
  assert.ok(report.elapsed > 0);
});

test('with the extended profile, get_test_results carries the compliance table, one entry per address; default has none', async () => {
  const id = (await ok('start_domain_test', { domain: 'healthy.test', profile: 'extended' })) as string;
  const deadline = Date.now() + 60_000;
  while ((await ok('test_progress', { test_id: id })) !== 100) {
    assert.ok(Date.now() < deadline, `test ${id} finishes`);
    await delay(100);
  }
  const results = (await ok('get_test_results', { id, language: 'en' })) as {
    compliance: { ns: string; address: string; tests: Record<string, string> }[];
    results: { module: string }[];
  };
  assertValid('service_results', results);
  assert.deepEqual(results.compliance.map((e) => `${e.ns}/${e.address}`).sort(), [
    'ns1.healthy.test/192.0.2.10',
    'ns1.healthy.test/2001:db8:10::1',
    'ns2.healthy.test/2001:db8:1740::10',
    'ns2.healthy.test/203.0.113.10',
  ]);
  assert.ok(results.compliance.every((e) => e.tests.edns === 'ok' && e.tests.signed === 'ok,yes' && Object.keys(e.tests).length === 35));
  assert.ok(
    results.results.some((r) => r.module === 'COMPLIANCE'),
    'its findings are among the results',
  );
  const history = (await ok('get_test_history', { frontend_params: { domain: 'healthy.test' } })) as { id: string }[];
  const defaultRun = history.find((entry) => entry.id !== id)!;
  assert.equal(((await ok('get_test_results', { id: defaultRun.id, language: 'en' })) as { compliance?: unknown }).compliance, undefined);
});
