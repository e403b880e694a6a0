// Agents as real processes on each database: two of them sharing one queue, one killed with
// SIGKILL in the middle of its tests, and one stopped with SIGTERM.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import type { ServiceSchema } from '../src/db/tables.ts';
import { enqueueTest, findTest, resultEntries } from '../src/db/tests.ts';
import { migratedDatabase, params, progressByDomain, waitFor } from './agent/agent-fixture.ts';

const child = new URL('./agent/agent-child.ts', import.meta.url).pathname;

interface AgentProcess {
  process: ChildProcess;
  /** Domains whose runs began in this process, in order. */
  started: string[];
  output: string[];
  exited: Promise<number | null>;
}

function startAgentProcess(url: string, env: Record<string, string> = {}): AgentProcess {
  const process_ = spawn(process.execPath, [child], {
    env: { ...process.env, AGENT_DATABASE_URL: url, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const agent: AgentProcess = {
    process: process_,
    started: [],
    output: [],
    exited: once(process_, 'exit').then(([code]) => code as number | null),
  };
  for (const stream of [process_.stdout, process_.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      agent.output.push(line);
      const started = /^started (\S+)$/.exec(line);
      if (started?.[1] !== undefined) agent.started.push(started[1]);
    });
  }
  return agent;
}

for (const target of await testDatabaseTargets()) {
  describe(`agent processes on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<ServiceSchema>;
    const processes: AgentProcess[] = [];
    before(async () => {
      ({ throwaway, database } = await migratedDatabase(target));
    });
    after(async () => {
      for (const agent of processes)
        if (agent.process.exitCode === null && agent.process.signalCode === null) agent.process.kill('SIGKILL');
      await Promise.all(processes.map((agent) => agent.exited));
      await database?.close();
      await throwaway?.drop();
    });

    function spawnAgent(env: Record<string, string>): AgentProcess {
      const agent = startAgentProcess(throwaway.url, env);
      processes.push(agent);
      return agent;
    }

    async function allFinished(domains: string[]): Promise<void> {
      await waitFor(
        `${domains.length} tests to finish`,
        async () => {
          const progress = await progressByDomain(database);
          return domains.every((d) => progress.get(d) === 100);
        },
        30_000,
      );
    }

    test('two agents share one queue: every test runs exactly once, none is left', async () => {
      const first = spawnAgent({ AGENT_CAPACITY: '4' });
      const second = spawnAgent({ AGENT_CAPACITY: '4' });
      await waitFor('both agents to start', () =>
        Promise.resolve([first, second].every((a) => a.output.some((line) => line.startsWith('dns-service: agent')))),
      );
      const domains = Array.from({ length: 40 }, (_, i) => `sleep100-${i}.shared.test`);
      for (const domain of domains) await enqueueTest(database.db, params(domain), 0);
      await allFinished(domains);
      first.process.kill('SIGTERM');
      second.process.kill('SIGTERM');
      assert.deepEqual(await Promise.all([first.exited, second.exited]), [0, 0]);
      const runs = [...first.started, ...second.started].sort();
      assert.deepEqual(runs, [...domains].sort(), 'each test ran once');
      assert.ok(
        first.started.length > 0 && second.started.length > 0,
        `both took work: ${first.started.length} and ${second.started.length}`,
      );
    });

    test('after an agent is killed with SIGKILL mid-test, the next agent start runs its tests to the end', async () => {
      const domains = ['hang-killed-1.kill.test', 'hang-killed-2.kill.test'];
      const ids = [];
      for (const domain of domains) ids.push(await enqueueTest(database.db, params(domain, 90), 0));
      const doomed = spawnAgent({ AGENT_CAPACITY: '2', AGENT_LEASE_SECONDS: '1' });
      await waitFor('both tests to be running', async () => {
        const progress = await progressByDomain(database);
        return domains.every((d) => progress.get(d) === 30);
      });
      doomed.process.kill('SIGKILL');
      assert.equal(await doomed.exited, null);
      const killedAt = Date.now();

      const next = spawnAgent({ AGENT_CAPACITY: '2', AGENT_LEASE_SECONDS: '1', AGENT_HANG: '0' });
      await allFinished(domains);
      assert.ok(Date.now() - killedAt < 10_000, "taken up once the dead agent's claims expire");
      assert.deepEqual([...next.started].sort(), [...domains].sort());
      for (const id of ids) {
        const row = await findTest(database.db, id);
        assert.ok(row);
        assert.equal(row.attempts, 2);
        assert.deepEqual(
          (await resultEntries(database.db, row.id)).map((e) => e.tag),
          ['SCRIPTED_RUN'],
        );
      }
      next.process.kill('SIGTERM');
      assert.equal(await next.exited, 0);
    });

    test('SIGTERM: no more claims, running tests may finish within the grace period, the rest go back', async () => {
      const quick = await enqueueTest(database.db, params('sleep600-quick.term.test', 80), 0);
      const stuck = await enqueueTest(database.db, params('hang-stuck.term.test', 70), 0);
      const agent = spawnAgent({ AGENT_CAPACITY: '2', AGENT_GRACE_MS: '2000' });
      await waitFor('both tests to start', () => Promise.resolve(agent.started.length === 2));
      const waiting = await enqueueTest(database.db, params('waiting.term.test', 99), 0);
      const signalled = Date.now();
      agent.process.kill('SIGTERM');
      assert.equal(await agent.exited, 0, agent.output.join('\n'));
      const took = Date.now() - signalled;
      assert.ok(took >= 1500 && took < 6000, `waited for the grace period, then left: ${took} ms`);

      assert.equal((await findTest(database.db, quick))?.progress, 100, 'a test that ends within the grace period is stored');
      const givenBack = await findTest(database.db, stuck);
      assert.equal(givenBack?.progress, 30, 'progress never goes down');
      assert.equal(givenBack?.agent, null, 'given back to the queue');
      assert.equal((await findTest(database.db, waiting))?.progress, 0, 'nothing claimed after SIGTERM');
      assert.deepEqual(agent.started.sort(), ['hang-stuck.term.test', 'sleep600-quick.term.test']);

      // The next agent takes the given-back test up at once.
      const next = spawnAgent({ AGENT_CAPACITY: '2', AGENT_HANG: '0' });
      await allFinished(['hang-stuck.term.test', 'waiting.term.test']);
      assert.equal((await findTest(database.db, stuck))?.attempts, 1, 'a run cut short by a stop does not count against the test');
      next.process.kill('SIGTERM');
      assert.equal(await next.exited, 0);
    });
  });
}
