// GET /metrics as Prometheus reads it (parsed with a text-format parser), /healthz and /readyz: the
// counters move when tests run, on every database. The DNS query counters are checked in the lab
// (inside/agent-lab.ts), where the real engine sends queries.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { testDatabaseTargets } from '@app/database/testing';
import { Agent } from '../src/agent/agent.ts';
import { scriptedEngine } from './agent/scripted-engine.ts';
import { writeConfigFixture } from './config-fixture.ts';
import { scrape } from './prometheus-scrape.ts';
import { useService, type Harness } from './rpc-harness.ts';

const iniFile = writeConfigFixture();

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `waited too long for ${what}`);
    await delay(25);
  }
}

for (const target of await testDatabaseTargets()) {
  describe(`metrics and health on ${target.name}`, { skip: target.skip }, () => {
    const h: Harness = useService(target, (c) => c, iniFile);
    let agent: Agent | undefined;
    after(async () => agent?.stop(0));

    test('health: /healthz answers; /readyz is 503 while no agent has been seen', async () => {
      const health = await fetch(new URL('/healthz', h.url));
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const ready = await fetch(new URL('/readyz', h.url));
      assert.equal(ready.status, 503);
      assert.deepEqual(await ready.json(), { status: 'not ready', agents_alive: 0, problems: ['no agent seen in the last 60 s'] });
    });

    test('the queue per priority, RPC calls by method and outcome, then tests run by an agent move the counters', async () => {
      const before = await scrape(h.url);
      for (const name of ['dns_health_queue_depth', 'dns_health_tests_started_total', 'dns_health_tests_finished_total', 'dns_health_tests_died_total', 'dns_health_test_duration_seconds', 'dns_health_agents_alive', 'dns_health_rpc_requests_total', 'dns_health_dns_queries_total', 'dns_health_dns_queries_timed_out_total']) {
        assert.ok(before.names.includes(name), `${name} is exported`);
      }
      const calls = before.value('dns_health_rpc_requests_total', { method: 'start_domain_test', outcome: 'result' });

      for (const domain of ['m1.example.se', 'm2.example.se', 'crash-m3.example.se']) await h.call('start_domain_test', { domain });
      await h.call('start_domain_test', { domain: 'm4.example.se', priority: 3 });
      await h.call('start_domain_test', { domain: '' });
      await h.call('drop_everything', {});
      await h.call('test_progress', { test_id: '0123456789abcdef' });

      const queued = await scrape(h.url);
      assert.equal(queued.value('dns_health_queue_depth', { queue: '0', priority: '10' }), 3);
      assert.equal(queued.value('dns_health_queue_depth', { queue: '0', priority: '3' }), 1);
      assert.equal(queued.value('dns_health_rpc_requests_total', { method: 'start_domain_test', outcome: 'result' }), calls + 4);
      assert.equal(queued.value('dns_health_rpc_requests_total', { method: 'start_domain_test', outcome: 'invalid_params' }), 1);
      assert.equal(queued.value('dns_health_rpc_requests_total', { method: 'unknown', outcome: 'not_found' }), 1, 'an unknown name is not a label of its own');
      assert.equal(queued.value('dns_health_rpc_requests_total', { method: 'test_progress', outcome: 'method_error' }), 1);

      const { database, config, profiles } = h.service.context;
      agent = new Agent({ database, config, profiles, runTests: scriptedEngine().runTests, log: () => undefined, metrics: h.service.metrics.agent });
      agent.start();
      await until('the queue to empty', async () => (await scrape(h.url)).value('dns_health_tests_finished_total', { overall_result: 'critical' }) >= 1 && (await scrape(h.url)).count('dns_health_test_duration_seconds') >= 4);

      const after = await scrape(h.url);
      assert.equal(after.value('dns_health_queue_depth', { queue: '0', priority: '10' }), 0);
      assert.equal(after.value('dns_health_tests_started_total') - before.value('dns_health_tests_started_total'), 4);
      assert.equal(after.count('dns_health_test_duration_seconds') - before.count('dns_health_test_duration_seconds'), 4);
      assert.equal(after.value('dns_health_tests_died_total', { reason: 'died' }) - before.value('dns_health_tests_died_total', { reason: 'died' }), 1, 'the crashing run');
      assert.equal(after.value('dns_health_agents_alive'), 1);

      const ready = await fetch(new URL('/readyz', h.url));
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ready', agents_alive: 1 });
    });

    test('a stopped agent is no longer alive', async () => {
      await agent?.stop(0);
      agent = undefined;
      assert.equal((await scrape(h.url)).value('dns_health_agents_alive'), 0);
      assert.equal((await fetch(new URL('/readyz', h.url))).status, 503);
    });
  });
}
