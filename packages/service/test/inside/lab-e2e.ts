// Runs inside the DNS lab's network namespace (started by ../lab-e2e.test.ts): the RPC API over
// HTTP on loopback, the engine's resolver against the lab's root, and tests followed to results.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readRootHints, runTests } from '@app/engine';
import { createRpcService, type RpcService } from '../../src/app.ts';
import { loadConfig } from '../../src/config/service-config.ts';
import { claimNextTest, finishTest, reportProgress } from '../../src/db/queue.ts';
import { guiGroups, untitledFindings, type GuiReply } from '../gui-report.ts';

const hints = process.env.DNS_ROOT_HINTS;
assert.ok(hints, 'DNS_ROOT_HINTS is set by the lab');
const rootHints = readRootHints(readFileSync(hints, 'utf8'));

let service: RpcService;
let url = '';
let nextId = 1;

async function call(
  method: string,
  params?: unknown,
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  assert.equal(response.status, 200);
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

async function ok(method: string, params?: unknown): Promise<unknown> {
  const reply = await call(method, params);
  assert.equal(reply.error, undefined, `${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

/** What an agent does, done here by hand: claim, run the engine, report progress, finish. */
async function runQueue(): Promise<number> {
  const { db, dialect } = service.context.database;
  let count = 0;
  const claimant = { agent: 'lab-e2e', leaseSeconds: 600 };
  for (let claimed = await claimNextTest(db, dialect, 0, claimant); claimed; claimed = await claimNextTest(db, dialect, 0, claimant)) {
    const { params, hashId } = claimed;
    const findings = await runTests(
      {
        domain: params.domain,
        ipv4: params.ipv4,
        ipv6: params.ipv6,
        nameservers: params.nameservers,
        dsInfo: params.ds_info,
      },
      { rootHints, onProgress: (percent) => void reportProgress(db, hashId, percent) },
    );
    assert.equal(await finishTest(db, hashId, findings), true);
    count++;
  }
  return count;
}

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dns-service-e2e-'));
  const config = { ...loadConfig({ env: { DNS_ROOT_HINTS: hints, DATA_DIR: dir } }), enableAddApiUser: true };
  service = await createRpcService(config);
  url = await service.app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await service?.close();
});

test('version_info names the three versions', async () => {
  const info = (await ok('version_info')) as Record<string, string>;
  assert.deepEqual(Object.keys(info).sort(), ['service_backend', 'service_engine', 'service_ldns']);
  for (const value of Object.values(info)) assert.match(value, /^\d+\.\d+\.\d+/);
});

test('get_host_by_name finds A and AAAA records from the lab root down', async () => {
  assert.deepEqual(await ok('get_host_by_name', { hostname: 'WWW.healthy.test.' }), [
    { 'WWW.healthy.test.': '192.0.2.80' },
    { 'WWW.healthy.test.': '2001:db8:10::80' },
  ]);
  assert.deepEqual(await ok('get_host_by_name', { hostname: 'nothing-here.healthy.test' }), [{ 'nothing-here.healthy.test': '0.0.0.0' }]);
  // The newer name answers with the same list, wrapped.
  assert.deepEqual(await ok('lookup_address_records', { hostname: 'WWW.healthy.test.' }), {
    address_records: [{ 'WWW.healthy.test.': '192.0.2.80' }, { 'WWW.healthy.test.': '2001:db8:10::80' }],
  });
});

test('get_data_from_parent_zone gives the delegation and the DS from the parent', async () => {
  const data = (await ok('get_data_from_parent_zone', { domain: 'healthy.test', language: 'fr' })) as {
    ns_list: { ns: string; ip: string }[];
    ds_list: Record<string, unknown>[];
  };
  const pairs = data.ns_list.map((n) => `${n.ns} ${n.ip}`).sort();
  assert.deepEqual(
    pairs,
    [
      'ns1.healthy.test 192.0.2.10',
      'ns1.healthy.test 2001:db8:10::1',
      'ns2.healthy.test 2001:db8:1740::10',
      'ns2.healthy.test 203.0.113.10',
    ].sort(),
  );
  assert.equal(data.ds_list.length >= 1, true);
  for (const ds of data.ds_list) {
    assert.deepEqual(Object.keys(ds).sort(), ['algorithm', 'digest', 'digtype', 'keytag']);
    assert.equal(ds.algorithm, 13);
  }
  const single = (await ok('get_data_from_parent_zone', { domain: 'single.test' })) as { ds_list: unknown[] };
  assert.deepEqual(single.ds_list, []);
  const sorted = (value: unknown) => {
    const { ns_list, ds_list } = value as { ns_list: { ns: string; ip: string }[]; ds_list: unknown[] };
    return { ns_list: [...ns_list].sort((a, b) => `${a.ns} ${a.ip}`.localeCompare(`${b.ns} ${b.ip}`)), ds_list };
  };
  assert.deepEqual(
    sorted(await ok('lookup_delegation_data', { domain: 'healthy.test' })),
    sorted(await ok('get_data_from_parent_zone', { domain: 'healthy.test' })),
  );
});

test('a test from start to results, translated, then in the history', async () => {
  const id = (await ok('start_domain_test', { domain: 'single.test', client_id: 'e2e' })) as string;
  assert.equal(await ok('test_progress', { test_id: id }), 0);
  assert.equal(await runQueue(), 1);
  assert.equal(await ok('test_progress', { test_id: id }), 100);

  const english = (await ok('get_test_results', { id, language: 'en' })) as {
    hash_id: string;
    created_at: string;
    creation_time: string;
    params: Record<string, unknown>;
    results: Record<string, string>[];
    testcase_descriptions: Record<string, string>;
  };
  assert.equal(english.hash_id, id);
  assert.match(english.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.match(english.creation_time, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+$/);
  assert.equal(english.params.domain, 'single.test');
  assert.ok(english.results.length > 0);
  for (const result of english.results) {
    assert.ok(['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'].includes(result.level), result.level);
    assert.ok(result.message && result.module && result.testcase);
    if (result.module === 'NAMESERVER' && 'ns' in result) assert.match(result.ns ?? '', /single\.test/);
  }
  assert.ok(english.testcase_descriptions.Basic01);

  const swedish = (await ok('get_test_results', { id, language: 'sv_SE' })) as typeof english;
  assert.equal(swedish.results.length, english.results.length);
  assert.notDeepEqual(
    swedish.results.map((r) => r.message),
    english.results.map((r) => r.message),
  );
  assert.notEqual(swedish.testcase_descriptions.Basic01, english.testcase_descriptions.Basic01);

  const history = (await ok('get_test_history', { frontend_params: { domain: 'single.test' } })) as Record<string, unknown>[];
  assert.equal(history.length, 1);
  assert.equal(history[0]?.id, id);
  assert.equal(history[0]?.undelegated, false);
  const worst = ['CRITICAL', 'ERROR', 'WARNING'].find((level) => english.results.some((r) => r.level === level));
  assert.equal(history[0]?.overall_result, worst?.toLowerCase() ?? 'ok');
});

test('a batch over two lab domains runs to the end', async () => {
  assert.equal(await ok('add_api_user', { username: 'e2e', api_key: 'secret-key' }), 1);
  const batch = (await ok('add_batch_job', { username: 'e2e', api_key: 'secret-key', domains: ['healthy.test', 'single.test'] })) as number;
  assert.deepEqual(await ok('get_batch_job_result', { batch_id: batch }), { nb_finished: 0, finished_test_ids: [], nb_running: 2 });
  assert.equal(await runQueue(), 2);
  const status = (await ok('get_batch_job_result', { batch_id: batch })) as {
    nb_finished: number;
    finished_test_ids: string[];
    nb_running: number;
  };
  assert.equal(status.nb_finished, 2);
  assert.equal(status.nb_running, 0);
  const healthy = (await ok('get_test_history', { frontend_params: { domain: 'healthy.test' } })) as Record<string, unknown>[];
  assert.equal(healthy.length, 1);
  assert.ok(status.finished_test_ids.includes(String(healthy[0]?.id)));
});

test('laid out as zonemaster-gui lays a report out, every finding of a lab zone is in a titled group, in every language', async () => {
  const languages = ((await ok('get_language_tags')) as string[]).filter((tag) => tag.length === 2);
  assert.ok(languages.includes('sl'), 'the default configuration offers Slovenian, as the GUI does');
  for (const domain of ['single.test', 'healthy.test']) {
    const [latest] = (await ok('get_test_history', { frontend_params: { domain } })) as { id: string }[];
    assert.ok(latest, `${domain} was tested above`);
    const counts = new Set<number>();
    for (const language of languages) {
      const reply = (await ok('get_test_results', { id: latest.id, language })) as GuiReply;
      assert.deepEqual(untitledFindings(reply), [], `${domain} in ${language}: findings without a titled group`);
      const outside = guiGroups(reply).filter((group) => group.testcase === 'Unspecified');
      // The engine's version at least, which the GUI shows only in the group it opens by itself.
      assert.ok(
        outside.some((group) => group.module === 'SYSTEM' && group.openByItself),
        `${domain} in ${language}: the engine's version is outside any test case`,
      );
      assert.ok(!reply.results.some((r) => r.testcase === 'UNSPECIFIED'), "today's spelling only");
      counts.add(reply.results.length);
    }
    assert.equal(counts.size, 1, `${domain}: the same findings in every language`);
  }
});
