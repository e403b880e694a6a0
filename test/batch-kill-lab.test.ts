// Nothing lost, nothing doubled: a batch of big.test. children on PostgreSQL with two agent processes
// in the lab; at about 30 % one agent is killed with SIGKILL and started again, and at about 60 %
// every database connection of the service is cut (pg_terminate_backend: restarting the shared
// PostgreSQL server would break other suites using it). At the end every test has exactly one
// finished result, and no run's results were dropped for coming second.
// BATCH_KILL_DOMAINS sets the batch's size (default 400, so that it ends in CI's time; the tests
// the killed agent held wait out their 60 s lease).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase } from '@app/database';
import { bigWorldDomains, commandLineDomain, labUnavailableReason, startLab } from '@app/lab';
import { sql } from 'kysely';
import { agentConfig, createBatchDatabase, postgresUnavailableReason, spawnAgent, startApi, type AgentProcess, type BatchProgress } from './support/batch-lab.ts';

const n = Number(process.env.BATCH_KILL_DOMAINS ?? 400);
const skip = (await labUnavailableReason()) ?? (await postgresUnavailableReason()) ?? false;

test(`a ${n}-domain batch survives an agent killed at 30 % and cut database connections at 60 %, with one result per test`, { skip, timeout: 15 * 60_000 }, async () => {
  const domains = bigWorldDomains(n).slice(3).map((child) => commandLineDomain(child.name));
  const lab = await startLab([`big:${n}`]);
  const store = await createBatchDatabase('zz_test_batch_kill');
  const config = agentConfig(8);
  const api = await startApi(store.url, Math.max(10_000, n));
  const agents: AgentProcess[] = [];
  try {
    agents.push(spawnAgent(lab, config.path, store.url), spawnAgent(lab, config.path, store.url));
    const batchId = await api.call<number>('add_batch_job', { username: 'bench', api_key: 'bench-key', domains });
    let killed = false;
    let cut = 0;
    const deadline = Date.now() + 12 * 60_000;
    for (;;) {
      const progress = await api.call<BatchProgress>('get_batch_job_result', { batch_id: batchId });
      if (progress.nb_running === 0 && progress.nb_finished === n) break;
      assert.ok(Date.now() < deadline, `the batch did not finish in time (${progress.nb_finished} of ${n})`);
      if (!killed && progress.nb_finished >= n * 0.3) {
        killed = true;
        const victim = agents[0];
        victim.kill('SIGKILL');
        await victim.exited;
        await delay(2000);
        agents.push(spawnAgent(lab, config.path, store.url));
      }
      if (killed && cut === 0 && progress.nb_finished >= n * 0.6) {
        const admin = await openDatabase(store.url.replace(`/${store.name}?`, '/postgres?'));
        const result = await sql<{ n: string }>`select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = ${store.name} and pid <> pg_backend_pid()`.execute(admin.db);
        cut = Number(result.rows[0]?.n);
        await admin.close();
      }
      await delay(500);
    }
    assert.ok(killed, 'an agent was killed');
    assert.ok(cut > 0, 'database connections were cut');

    const db = store.database.db;
    const tests = await db.selectFrom('dh_test').select(['id', 'domain', 'progress', 'attempts', 'overall_result']).where('batch_id', '=', batchId).execute();
    assert.equal(tests.length, n, 'one test per domain');
    assert.deepEqual(new Set(tests.map((t) => t.domain)), new Set(domains));
    assert.deepEqual(tests.filter((t) => t.progress !== 100 || t.overall_result === null), [], 'every test finished');
    const taken = tests.filter((t) => t.attempts > 1);
    assert.ok(taken.length > 0, 'the killed agent left tests that another run took up');
    // One finished result: result entries and one query log per test, no test given up as died.
    const withEntries = await db.selectFrom('dh_result_entry').select('test_id').distinct().where('test_id', 'in', tests.map((t) => t.id)).execute();
    assert.equal(withEntries.length, n, 'every test has its results');
    const logs = await db.selectFrom('dh_test_queries').select(['test_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('test_id').execute();
    assert.deepEqual(logs.filter((l) => Number(l.n) !== 1), [], 'one query log per test');
    const died = await db.selectFrom('dh_result_entry').select('test_id').where('module', '=', 'BACKEND').execute();
    assert.deepEqual(died, [], 'no test ended as died');
    const dropped = agents.flatMap((a) => a.log.filter((line) => line.includes('already finished by another run')));
    assert.deepEqual(dropped, [], 'no test ran twice to completion');
    console.log(`# ${n} tests; ${taken.length} taken up after the kill; ${cut} connections cut; agents' logs: ${agents.map((a) => a.log.length).join(', ')} lines`);
  } finally {
    for (const agent of agents) if (agent.child.exitCode === null) agent.kill('SIGKILL');
    await Promise.all(agents.map((a) => a.exited));
    await api.stop();
    await store.drop();
    config.remove();
    await lab.stop();
  }
});
