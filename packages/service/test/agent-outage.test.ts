// A database that goes away for a while: the agent reaches PostgreSQL or MariaDB through a TCP
// relay on loopback that the test cuts (every connection dropped, new ones refused) and restores.
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase, type Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { Agent } from '../src/agent/agent.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { enqueueTest, findTest, resultEntries } from '../src/db/tests.ts';
import { agentConfig, migratedDatabase, params, profiles, progressByDomain, waitFor } from './agent/agent-fixture.ts';
import { scriptedEngine } from './agent/scripted-engine.ts';

class Relay {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      // A connection accepted just before the cut may be handed over after it.
      if (server !== this.#server || !server.listening) {
        client.destroy();
        return;
      }
      const upstream = connect(this.#target.port, this.#target.host);
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.#sockets.add(a);
        a.pipe(b);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.#sockets.delete(a);
          b.destroy();
        });
      }
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
  }

  async cut(): Promise<void> {
    const closed = new Promise((resolve) => this.#server?.close(resolve));
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }
}

for (const target of (await testDatabaseTargets()).filter((t) => t.dialect !== 'sqlite')) {
  describe(`agent on ${target.name} that goes away for a while`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let direct: Database<ServiceSchema>;
    let relayed: Database<ServiceSchema>;
    let relay: Relay;
    let agent: Agent | undefined;
    before(async () => {
      ({ throwaway, database: direct } = await migratedDatabase(target));
      const url = new URL(throwaway.url);
      relay = new Relay({ host: url.hostname, port: Number(url.port) });
      await relay.open();
      url.hostname = '127.0.0.1';
      url.port = String(relay.port);
      relayed = await openDatabase<ServiceSchema>(url.toString(), { connectTimeoutMs: 1000 });
    });
    after(async () => {
      await agent?.stop(0);
      await relay?.cut();
      await relayed?.close().catch(() => undefined);
      await direct?.close();
      await throwaway?.drop();
    });

    test('is retried with backoff; the agent lives on and stores every result once it is back', async () => {
      const log: string[] = [];
      agent = new Agent({
        database: relayed,
        config: agentConfig(),
        profiles,
        runTests: scriptedEngine().runTests,
        log: (line) => log.push(line),
      });
      const running = await enqueueTest(direct.db, params('sleep1500-across.outage.test'), 0);
      agent.start();
      await waitFor('the first test to run', async () => ((await findTest(direct.db, running))?.progress ?? 0) >= 10);

      await relay.cut();
      const during = [];
      for (let i = 0; i < 3; i++) during.push(await enqueueTest(direct.db, params(`queued-${i}.outage.test`), 0));
      await delay(3000);
      assert.equal((await progressByDomain(direct)).get('queued-0.outage.test'), 0, 'nothing claimed while the database is away');
      assert.ok(
        log.some((line) => /cannot claim tests/.test(line)),
        `claims failed and were retried:\n${log.join('\n')}`,
      );
      assert.ok(
        log.some((line) => /cannot store the results/.test(line)),
        `the finished test waits to be stored:\n${log.join('\n')}`,
      );
      const claimRetries = log.filter((line) => /cannot claim tests/.test(line)).length;
      assert.ok(claimRetries < 20, `with backoff, not in a tight loop: ${claimRetries} retries in 3 s`);

      await relay.open();
      for (const id of [running, ...during]) {
        const row = await waitFor(
          `test ${id} to finish`,
          async () => {
            const found = await findTest(direct.db, id);
            return found?.progress === 100 && found;
          },
          40_000,
        );
        assert.deepEqual(
          (await resultEntries(direct.db, row.id)).map((e) => e.tag),
          ['SCRIPTED_RUN'],
        );
      }
      await agent.stop(1000);
    });
  });
}
