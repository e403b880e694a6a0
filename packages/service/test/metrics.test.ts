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
      for (const name of [
        'dns_health_queue_depth',
        'dns_health_tests_started_total',
        'dns_health_tests_finished_total',
        'dns_health_tests_died_total',
        'dns_health_test_duration_seconds',
        'dns_health_agents_alive',
        'dns_health_rpc_requests_total',
        'dns_health_dns_queries_total',
        'dns_health_dns_queries_timed_out_total',
      ]) {
        assert.ok(before.names.includes(name), `${name} is exported`);
      }
      const calls = before.value('dns_health_rpc_requests_total', { method: 'start_domain_test', outcome: 'result' });

      for (const domain of ['m1.example.se', 'm2.example.se', 'crash-m3.example.se']) await h.call('start_domain_test', { domain });
      await h.call('start_domain_test', { domain: 'm4.example.se', priority: 3 });
      await h.call('start_domain_test', { domain: '' });
      await h.call('drop_everything', {});
      await h.call('test_progress', { test_id: '0123456789abcdef' });

      const queued = await scrape(h.url);
      assert.equal(queued.value('dns_health_queue_depth', { queue: '0' }), 4, 'every priority in one series');
      assert.equal(queued.value('dns_health_rpc_requests_total', { method: 'start_domain_test', outcome: 'result' }), calls + 4);
      assert.equal(queued.value('dns_health_rpc_requests_total', { method: 'start_domain_test', outcome: 'invalid_params' }), 1);
      assert.equal(
        queued.value('dns_health_rpc_requests_total', { method: 'unknown', outcome: 'not_found' }),
        1,
        'an unknown name is not a label of its own',
      );
      assert.equal(queued.value('dns_health_rpc_requests_total', { method: 'test_progress', outcome: 'method_error' }), 1);

      const { database, config, profiles } = h.service.context;
      agent = new Agent({
        database,
        config,
        profiles,
        runTests: scriptedEngine().runTests,
        log: () => undefined,
        metrics: h.service.metrics.agent,
      });
      agent.start();
      await until(
        'the queue to empty',
        async () =>
          (await scrape(h.url)).value('dns_health_tests_finished_total', { overall_result: 'critical' }) >= 1 &&
          (await scrape(h.url)).count('dns_health_test_duration_seconds') >= 4,
      );

      const after = await scrape(h.url);
      assert.equal(after.value('dns_health_queue_depth', { queue: '0' }), 0);
      assert.equal(after.value('dns_health_tests_started_total') - before.value('dns_health_tests_started_total'), 4);
      assert.equal(after.count('dns_health_test_duration_seconds') - before.count('dns_health_test_duration_seconds'), 4);
      assert.equal(
        after.value('dns_health_tests_died_total', { reason: 'died' }) - before.value('dns_health_tests_died_total', { reason: 'died' }),
        1,
        'the crashing run',
      );
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

    test('2,000 anonymous start_domain_test calls with random queues and priorities add no series to /metrics', async () => {
      // No agent runs now: what is queued stays queued.
      const text = async () => (await fetch(new URL('/metrics', h.url))).text();
      const series = (body: string) => body.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
      const before = await text();
      const random = (span: number) => Math.floor(Math.random() * span) - span / 2;
      let refused = 0;
      let queued = 0;
      const one = async (i: number) => {
        // Most ask for a queue the service does not have; a tenth for a configured one (0-9), at any priority.
        const queue = i % 10 === 0 ? i % 9 : random(2_000_000);
        const reply = await h.call('start_domain_test', { domain: `flood${i}.example.se`, queue, priority: random(2_000_000) });
        if (reply.error === undefined) queued++;
        else {
          refused++;
          assert.equal(reply.error.code, -32602);
          assert.deepEqual(reply.error.data, [{ path: '/queue', message: 'Not a queue of this service (these are: 0-9)' }]);
        }
      };
      for (let i = 0; i < 2000; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => one(i + j)));
      assert.ok(queued >= 200 && refused >= 1700, `${queued} queued, ${refused} refused`);
      // Tests stored in a queue the configuration does not list (an older configuration's) are summed, not labelled.
      await h.service.context.database.db
        .updateTable('dh_test')
        .set({ queue: 4711 })
        .where('domain', 'in', ['flood0.example.se', 'flood10.example.se'])
        .execute();
      const after = await text();
      assert.equal(series(after), series(before), 'the same series as before the calls');
      assert.ok(after.length < before.length + 200, `/metrics grew from ${before.length} to ${after.length} bytes`);
      const scraped = await scrape(h.url);
      assert.equal(scraped.value('dns_health_queue_depth', { queue: 'other' }), 2);
      const depth = (q: string) => scraped.value('dns_health_queue_depth', { queue: q });
      assert.equal(
        ['0', '1', '2', '3', '4', '5', '6', '7', '8', 'other'].reduce((sum, q) => sum + depth(q), 0),
        queued,
      );
      assert.doesNotMatch(after, /priority=/);
    });
  });
}
