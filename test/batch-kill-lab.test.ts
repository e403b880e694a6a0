// Nothing lost, nothing doubled: a batch of big.test. children on PostgreSQL with two agent processes
// in the lab, sharing answers about the parents through Redis; at about 20 % Redis is killed, down
// for 3 s and started again empty, at about 30 % one agent is killed with SIGKILL and started again
// (its successor finds only what was shared since), and at about 60 % the PostgreSQL server is restarted (stopped, down for 3 s, started again). Both
// servers are this test's own (@app/database/testing's startPrivatePostgres: initdb into a temporary
// folder, its socket under another port; support/private-redis.ts: redis-server on a socket of its
// own), never the shared ones other suites use. At the end every test has exactly one finished
// result, no run's results were dropped for coming second, and the agents saw Redis go and come
// back and used it again.
// BATCH_KILL_DOMAINS sets the batch's size (default 400, so that it ends in CI's time; the tests
// the killed agent held wait out their lease, agent_lease_seconds = 20 here).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { bigWorldDomains, commandLineDomain, labUnavailableReason, startLab } from '@app/lab';
import {
  agentConfig,
  createBatchDatabase,
  spawnAgent,
  startApi,
  testsEndedByBackend,
  type AgentProcess,
  type Api,
  type BatchDatabase,
  type BatchProgress,
} from './support/batch-lab.ts';
import { privatePostgresUnavailableReason, startPrivatePostgres, type PrivatePostgres } from '@app/database/testing';
import { privateRedisUnavailableReason, startPrivateRedis, type PrivateRedis } from './support/private-redis.ts';

const n = Number(process.env.BATCH_KILL_DOMAINS ?? 400);
const skip = (await labUnavailableReason()) ?? privatePostgresUnavailableReason() ?? privateRedisUnavailableReason() ?? false;

test(
  `a ${n}-domain batch survives a Redis restart at 20 %, an agent killed at 30 % and a PostgreSQL restart at 60 %, with one result per test`,
  { skip, timeout: 15 * 60_000 },
  async () => {
    const domains = bigWorldDomains(n)
      .slice(3)
      .map((child) => commandLineDomain(child.name));
    const lab = await startLab([`big:${n}`]);
    const config = agentConfig(8, 'agent_lease_seconds = 20\n');
    const agents: AgentProcess[] = [];
    let server: PrivatePostgres | undefined;
    let redis: PrivateRedis | undefined;
    let store: BatchDatabase | undefined;
    let api: Api | undefined;
    try {
      server = await startPrivatePostgres();
      redis = await startPrivateRedis();
      store = await createBatchDatabase('zz_test_batch_kill', server);
      api = await startApi(store.url, Math.max(10_000, n));
      agents.push(spawnAgent(lab, config.path, store.url, redis.url), spawnAgent(lab, config.path, store.url, redis.url));
      const batchId = await api.call<number>('add_batch_job', { username: 'bench', api_key: 'bench-key', domains });
      let killed = false;
      let redisRestartedWith: number | undefined;
      let restartedAt: number | undefined;
      let restartedWith = 0;
      let unanswered = 0;
      const deadline = Date.now() + 12 * 60_000;
      for (;;) {
        let progress: BatchProgress;
        try {
          progress = await api.call<BatchProgress>('get_batch_job_result', { batch_id: batchId });
        } catch (error) {
          // Only just after the restart may a call meet a connection that has not been replaced yet.
          assert.ok(
            restartedAt !== undefined && Date.now() - restartedAt < 30_000,
            `get_batch_job_result failed: ${(error as Error).message}`,
          );
          unanswered++;
          await delay(500);
          continue;
        }
        if (progress.nb_running === 0 && progress.nb_finished === n) break;
        assert.ok(Date.now() < deadline, `the batch did not finish in time (${progress.nb_finished} of ${n})`);
        if (redisRestartedWith === undefined && progress.nb_finished >= n * 0.2) {
          await redis.restart(3000);
          redisRestartedWith = progress.nb_finished;
        }
        if (!killed && redisRestartedWith !== undefined && progress.nb_finished >= n * 0.3) {
          killed = true;
          const victim = agents[0];
          victim.kill('SIGKILL');
          await victim.exited;
          await delay(2000);
          agents.push(spawnAgent(lab, config.path, store.url, redis.url));
        }
        if (killed && restartedAt === undefined && progress.nb_finished >= n * 0.6) {
          await server.restart(3000);
          restartedAt = Date.now();
          restartedWith = progress.nb_finished;
        }
        await delay(500);
      }
      assert.ok(killed, 'an agent was killed');
      assert.ok(restartedAt !== undefined, 'PostgreSQL was restarted');
      assert.ok(redisRestartedWith !== undefined, 'Redis was restarted');
      // Started empty: what it holds and was asked for since came from the agents after the restart.
      const redisInfo = await redis.info();
      const asked = Number(redisInfo.keyspace_hits) + Number(redisInfo.keyspace_misses);
      const kept = Number(/keys=(\d+)/.exec(redisInfo.db0 ?? '')?.[1] ?? 0);
      assert.ok(
        asked > 0 && kept > 0,
        `the agents used Redis again after its restart (INFO: ${redisInfo.keyspace_hits} hits, ${redisInfo.keyspace_misses} misses, ${kept} keys)`,
      );
      const redisLines = agents.flatMap((a) => a.log.filter((line) => /Redis/.test(line)));
      assert.ok(
        agents[1].log.some((line) => line.includes('Redis answers again')),
        `the surviving agent saw Redis come back:\n${redisLines.join('\n')}`,
      );
      const waited = agents.flatMap((a) => a.log.filter((line) => /cannot (claim tests|store the results|renew)/.test(line)));

      const db = store.database.db;
      const tests = await db
        .selectFrom('dh_test')
        .select(['id', 'domain', 'progress', 'attempts', 'overall_result'])
        .where('batch_id', '=', batchId)
        .execute();
      assert.equal(tests.length, n, 'one test per domain');
      assert.deepEqual(new Set(tests.map((t) => t.domain)), new Set(domains));
      assert.deepEqual(
        tests.filter((t) => t.progress !== 100 || t.overall_result === null),
        [],
        'every test finished',
      );
      const taken = tests.filter((t) => t.attempts > 1);
      assert.ok(taken.length > 0, 'the killed agent left tests that another run took up');
      // One finished result: result entries and one query log per test, no test given up as died.
      const withEntries = await db
        .selectFrom('dh_test_result')
        .select(['test_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where(
          'test_id',
          'in',
          tests.map((t) => t.id),
        )
        .groupBy('test_id')
        .execute();
      assert.equal(withEntries.length, n, 'every test has its results');
      assert.deepEqual(
        withEntries.filter((r) => Number(r.n) !== 1),
        [],
        'stored once',
      );
      const logs = await db
        .selectFrom('dh_test_queries')
        .select(['test_id', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('test_id')
        .execute();
      assert.deepEqual(
        logs.filter((l) => Number(l.n) !== 1),
        [],
        'one query log per test',
      );
      assert.deepEqual(
        await testsEndedByBackend(
          store.database,
          tests.map((t) => t.id),
        ),
        [],
        'no test ended as died',
      );
      const dropped = agents.flatMap((a) => a.log.filter((line) => line.includes('already finished by another run')));
      assert.deepEqual(dropped, [], 'no test ran twice to completion');
      console.log(
        `# Redis restarted with ${redisRestartedWith} finished (down 3 s, started empty); since then ${redisInfo.keyspace_hits} answers found there, ${redisInfo.keyspace_misses} not, ${kept} kept; ${redisLines.length} agent log lines about Redis`,
      );
      console.log(
        `# ${n} tests; ${taken.length} taken up after the kill; PostgreSQL restarted with ${restartedWith} finished (down 3 s); ${unanswered} polls unanswered after it; ${waited.length} agent log lines about the database being away; agents' logs: ${agents.map((a) => a.log.length).join(', ')} lines`,
      );
    } finally {
      for (const agent of agents) if (agent.child.exitCode === null) agent.kill('SIGKILL');
      await Promise.all(agents.map((a) => a.exited));
      await api?.stop();
      await store?.drop().catch(() => undefined);
      await server?.remove();
      await redis?.stop();
      config.remove();
      await lab.stop();
    }
  },
);
