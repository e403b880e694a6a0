// The agent in one process on each database: claim order, queues, concurrency, progress, batches,
// the timeout and crash entries, and tests whose agent died. The engine is a scripted stand-in
// (see agent/scripted-engine.ts) so each behaviour can be provoked on purpose.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { formatFinding, locales, type Finding } from '@app/engine';
import { Agent, type AgentConfig } from '../src/agent/agent.ts';
import { testDied, unableToFinish } from '../src/agent/backend-entries.ts';
import { createBatch, batchStatus } from '../src/db/batches.ts';
import { claimNextTest, reportProgress } from '../src/db/queue.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { enqueueTest, findTest, resultEntries } from '../src/db/tests.ts';
import { agentConfig, migratedDatabase, params, profiles, waitFor } from './agent/agent-fixture.ts';
import { scriptedEngine, type ScriptedEngine } from './agent/scripted-engine.ts';

for (const target of await testDatabaseTargets()) {
  describe(`agent on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<ServiceSchema>;
    const agents: Agent[] = [];
    before(async () => {
      ({ throwaway, database } = await migratedDatabase(target));
    });
    after(async () => {
      await Promise.all(agents.map((agent) => agent.stop(0)));
      await database?.close();
      await throwaway?.drop();
    });

    /** `leaseSeconds` null: the configuration's. */
    function startAgent(engine: ScriptedEngine, config: Partial<AgentConfig> = {}, leaseSeconds: number | null = 60): Agent {
      const agent = new Agent({
        database,
        config: agentConfig(config),
        profiles,
        runTests: engine.runTests,
        ...(leaseSeconds !== null && { leaseSeconds }),
        log: () => undefined,
      });
      agents.push(agent);
      agent.start();
      return agent;
    }

    async function enqueue(domain: string, priority = 10, queue = 0): Promise<string> {
      return enqueueTest(database.db, params(domain, priority, queue), 0);
    }

    async function finished(hashId: string) {
      const row = await waitFor(`test ${hashId} to finish`, async () => {
        const found = await findTest(database.db, hashId);
        return found?.progress === 100 && found;
      });
      const entries = await resultEntries(database.db, row.id);
      return { row, entries };
    }

    test('runs the highest priority first, then the oldest, and only tests of its own queue', async () => {
      const low = await enqueue('low.order.test', 5);
      const highOld = await enqueue('high-old.order.test', 10);
      const highNew = await enqueue('high-new.order.test', 10);
      const otherQueue = await enqueue('other-queue.order.test', 99, 1);
      const engine = scriptedEngine();
      const agent = startAgent(engine, { frontendProcesses: 1, batchProcesses: 0 });
      for (const id of [low, highOld, highNew]) await finished(id);
      await agent.stop(1000);
      assert.deepEqual(engine.started, ['high-old.order.test', 'high-new.order.test', 'low.order.test']);
      assert.equal((await findTest(database.db, otherQueue))?.progress, 0);

      const queueOne = scriptedEngine();
      const second = startAgent(queueOne, { lockOnQueue: 1 });
      await finished(otherQueue);
      await second.stop(1000);
      assert.deepEqual(queueOne.started, ['other-queue.order.test']);
    });

    test('runs up to the two process counts together at once, and no more', async () => {
      const ids = await Promise.all(Array.from({ length: 7 }, (_, i) => enqueue(`sleep300-${i}.many.test`)));
      const engine = scriptedEngine();
      const agent = startAgent(engine, { frontendProcesses: 2, batchProcesses: 1 });
      for (const id of ids) await finished(id);
      await agent.stop(1000);
      assert.equal(engine.peak, 3);
      assert.equal(engine.started.length, 7);
    });

    test('progress rises within 1–99 while a test runs, and reaches 100 only with its results', async () => {
      // Reports at 0, 0.6, 1.2 and 1.8 s; at most one write a second.
      const id = await enqueue('sleep2400-progress.test');
      const agent = startAgent(scriptedEngine());
      const seen: number[] = [];
      for (;;) {
        const row = await findTest(database.db, id);
        assert.ok(row);
        if (row.progress === 100) {
          assert.ok((await resultEntries(database.db, row.id)).length > 0, 'results are there when progress says 100');
          seen.push(100);
          break;
        }
        seen.push(row.progress);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await agent.stop(1000);
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => a - b),
        `never goes down: ${seen.join(' ')}`,
      );
      const running = seen.filter((p) => p > 0 && p < 100);
      assert.ok(running.includes(40) && running.includes(70), `the engine's reports are written, a second apart: ${seen.join(' ')}`);
      assert.ok(running.every((p) => p >= 1 && p <= 99));
    });

    test("a batch's counters reach the end", async () => {
      const created = await createBatch(
        database.db,
        database.dialect,
        'batch-user',
        ['sleep50-a.batch.test', 'b.batch.test', 'crash-c.batch.test'].map((d) => params(d, 5)),
      );
      assert.ok('created' in created);
      assert.deepEqual(await batchStatus(database.db, database.dialect, created.created), {
        nb_finished: 0,
        finished_test_ids: [],
        nb_running: 3,
      });
      const agent = startAgent(scriptedEngine());
      const status = await waitFor('the batch to finish', async () => {
        const now = await batchStatus(database.db, database.dialect, created.created);
        return now?.nb_running === 0 && now;
      });
      await agent.stop(1000);
      assert.equal(status.nb_finished, 3);
      assert.equal(status.finished_test_ids.length, 3);
    });

    test('a test past max_zonemaster_execution_time is stopped and finished with one CRITICAL entry', async () => {
      const hanging = await enqueue('hang-timeout.test');
      const deaf = await enqueue('deaf-timeout.test');
      const engine = scriptedEngine();
      const begun = Date.now();
      const agent = startAgent(engine, { maxExecutionSeconds: 1 });
      for (const id of [hanging, deaf]) {
        const { row, entries } = await finished(id);
        assert.deepEqual(
          entries.map((e) => ({ module: e.module, tag: e.tag, level: e.level, args: JSON.parse(e.args) as unknown })),
          [{ module: 'BACKEND', tag: 'UNABLE_TO_FINISH_TEST', level: 'CRITICAL', args: { max_execution_time: 1 } }],
        );
        assert.equal(row.overall_result, 'critical');
      }
      const took = Date.now() - begun;
      assert.ok(took >= 1000 && took < 5000, `stopped after the limit, not long after: ${took} ms`);
      assert.equal(engine.signals.get('hang-timeout.test')?.aborted, true, 'the engine is told to stop');
      // A run that ignores the signal must not hold a slot: the agent keeps working.
      const next = await enqueue('after-timeout.test');
      assert.equal((await finished(next)).entries[0]?.tag, 'SCRIPTED_RUN');
      await agent.stop(1000);
    });

    test('a run that throws is finished with one CRITICAL entry, and the agent goes on', async () => {
      const crashing = await enqueue('crash-dies.test');
      const healthy = await enqueue('fine-after-crash.test');
      const agent = startAgent(scriptedEngine(), { frontendProcesses: 1, batchProcesses: 0 });
      const died = await finished(crashing);
      assert.deepEqual(
        died.entries.map((e) => [e.module, e.tag, e.level]),
        [['BACKEND', 'TEST_DIED', 'CRITICAL']],
      );
      assert.equal((await finished(healthy)).entries[0]?.tag, 'SCRIPTED_RUN');
      await agent.stop(1000);
    });

    test('a test whose agent stopped answering is run again; one cut short too often is finished as died', async () => {
      const dead = { agent: 'gone-for-good', leaseSeconds: -1 };
      const rerun = await enqueue('orphan-rerun.test', 50);
      assert.equal((await claimNextTest(database.db, database.dialect, 0, dead))?.hashId, rerun);
      await reportProgress(database.db, rerun, 40);
      const hopeless = await enqueue('orphan-hopeless.test', 40);
      assert.equal((await claimNextTest(database.db, database.dialect, 0, dead))?.hashId, hopeless);
      await database.db.updateTable('dh_test').set({ attempts: 2 }).where('hash_id', '=', hopeless).execute();

      const engine = scriptedEngine();
      const agent = startAgent(engine, {}, 1);
      const again = await finished(rerun);
      assert.equal(again.entries[0]?.tag, 'SCRIPTED_RUN');
      assert.equal(again.row.attempts, 2);
      assert.equal(again.row.agent, agent.name);
      const given = await finished(hopeless);
      assert.deepEqual(
        given.entries.map((e) => [e.module, e.tag, e.level]),
        [['BACKEND', 'TEST_DIED', 'CRITICAL']],
      );
      assert.deepEqual(engine.started, ['orphan-rerun.test']);
      await agent.stop(1000);
    });

    test('a claim holds as long as agent_lease_seconds says', async () => {
      const id = await enqueue('sleep1200-lease.test');
      const agent = startAgent(scriptedEngine(), { agentLeaseSeconds: 900 }, null);
      const claimed = await waitFor('the test to be claimed', async () => {
        const row = await findTest(database.db, id);
        return row?.lease_until !== null && row?.lease_until !== undefined && row.progress < 100 && row;
      });
      const holds = (Date.parse(claimed.lease_until!) - Date.now()) / 1000;
      assert.ok(holds > 880 && holds <= 900, `the lease runs for the configured 900 s: ${holds} s left`);
      await finished(id);
      await agent.stop(1000);
    });

    test('with maximal_number_of_retries = 0 a test cut short once is finished as died, not run again', async () => {
      const dead = { agent: 'gone-too', leaseSeconds: -1 };
      const orphan = await enqueue('orphan-no-retry.test', 60);
      assert.equal((await claimNextTest(database.db, database.dialect, 0, dead))?.hashId, orphan);
      const engine = scriptedEngine();
      const agent = startAgent(engine, { maximalRetries: 0 }, 1);
      const given = await finished(orphan);
      assert.deepEqual(
        given.entries.map((e) => [e.module, e.tag, e.level]),
        [['BACKEND', 'TEST_DIED', 'CRITICAL']],
      );
      assert.deepEqual(engine.started, []);
      await agent.stop(1000);
    });
  });
}

test("the agent's own entries, outside any test case, read as sentences in every locale", () => {
  const entries: Finding[] = [unableToFinish(600), testDied(1)];
  // Spelt as engine 9.0.1 spells findings outside a test case (this changed from UNSPECIFIED).
  assert.deepEqual(
    entries.map((e) => [e.module, e.testcase, e.tag, e.level]),
    [
      ['BACKEND', 'Unspecified', 'UNABLE_TO_FINISH_TEST', 'CRITICAL'],
      ['BACKEND', 'Unspecified', 'TEST_DIED', 'CRITICAL'],
    ],
  );
  for (const entry of entries) {
    const texts = new Set(locales.map((locale) => formatFinding(entry, locale)));
    assert.equal(texts.size, locales.length, `${entry.tag}: one text per locale`);
    for (const text of texts) assert.doesNotMatch(text, /[A-Z]{4,}_/, `${entry.tag}: text, not the tag`);
  }
  assert.match(formatFinding(entries[0], 'fr'), /600/);
});
