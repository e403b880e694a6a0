// Idempotency-Key when store processes die, for each kind of keyed write (support/keyed-routes.ts: a record, one with
// an encrypted field, a cart's lines, stock, placing an order): three instances on one database get concurrent copies
// of keyed requests while one is SIGKILLed and started again; every key has one effect and every copy that got an
// answer got the same bytes. Then the crash window itself, held open by the test's own locks: the write is made,
// storing the key's answer waits on a row the test holds, and there the process is SIGKILLed and its database session
// ended (so the waiting statement never runs); a retry must still end with one effect and an answer, not 409 for 24 h.
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { freePort, testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { sql, type RawBuilder } from 'kysely';
import { Agent, request } from 'undici';
import { effectsPerKey, keysAnsweredDifferently, sendKeyedCopies, type Answer } from '../scripts/soak/keyed-copies.ts';
import type { Row, StoreSchema } from '../src/db/schema.ts';
import { keyedRoutes, type ApiCall } from './support/keyed-routes.ts';
import type { ServeOptions } from '../src/server.ts';

interface Ready {
  apiUrl: string;
  certificate: string;
  token: string;
}

/** A store process on a fixed port, so a restarted one is found where it was. */
class StoreInstance {
  child: ChildProcess | undefined;
  ready: Ready | undefined;
  readonly options: ServeOptions;
  constructor(options: ServeOptions) {
    this.options = options;
  }

  async start(): Promise<Ready> {
    const child = fork(new URL('./support/store-process.ts', import.meta.url), [JSON.stringify(this.options)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.child = child;
    const [ready] = (await once(child, 'message')) as [Ready];
    this.ready = ready;
    return ready;
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}

async function startInstances(throwaway: ThrowawayDatabase, dataDir: string, count: number): Promise<StoreInstance[]> {
  const instances: StoreInstance[] = [];
  for (let i = 0; i < count; i += 1) {
    const options: ServeOptions = {
      databaseUrl: throwaway.url,
      dataDir,
      host: '127.0.0.1',
      port: await freePort(),
      logLevel: 'silent',
      without: { rateLimit: true },
    };
    const instance = new StoreInstance(options);
    // One after another: the first makes the store, the others find it.
    await instance.start();
    instances.push(instance);
  }
  return instances;
}

function caller(ready: Ready, dispatcher: Agent) {
  return async (apiUrl: string, method: string, path: string, body: unknown, key?: string): Promise<Answer & { replayed: boolean }> => {
    const response = await request(`${apiUrl}${path}`, {
      method: method as 'POST',
      dispatcher,
      headers: {
        'x-ac-auth-token': ready.token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, text: await response.body.text(), replayed: response.headers['idempotent-replayed'] === 'true' };
  };
}

function apiOf(ready: Ready, dispatcher: Agent): ApiCall {
  const call = caller(ready, dispatcher);
  return async (method, path, body) => {
    const answer = await call(ready.apiUrl, method, path, body);
    return { status: answer.status, json: answer.text === '' ? {} : (JSON.parse(answer.text) as Row) };
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const target of await testDatabaseTargets()) {
  describe(`Idempotency-Key with store processes killed, on ${target.name}`, { skip: target.skip }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'store-idempotency-kill-'));
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    test('copies of each key at once on 3 instances, one SIGKILLed and restarted: one effect per key, one answer, each kind of write', async () => {
      const throwaway = await target.create();
      const instances = await startInstances(throwaway, join(dataDir, 'three'), 3);
      const first = instances[0]?.ready;
      assert.ok(first !== undefined);
      const dispatcher = new Agent({ connect: { ca: first.certificate }, connections: 32 });
      const database = await openDatabase<StoreSchema>(throwaway.url);
      try {
        const call = caller(first, dispatcher);
        const api = apiOf(first, dispatcher);
        const victim = instances[1];
        assert.ok(victim !== undefined);
        for (const route of keyedRoutes) {
          const keys = Array.from({ length: 40 }, (_, i) => `${route.name}-${i}`);
          const prepared = await route.prepare(api, keys);
          const load = sendKeyedCopies({
            keys,
            copies: 5,
            spacingMs: 15,
            giveUpMs: 60_000,
            send: (key, copy, attempt) => {
              const { path, body } = prepared.requestOf(key);
              return call(instances[(copy + attempt) % instances.length]?.ready?.apiUrl ?? '', 'POST', path, body, key);
            },
          });
          // Mid-run: writes of some keys are in flight on the victim when it dies.
          await sleep(300);
          await victim.kill();
          await victim.start();
          const outcome = await load;
          const effects = await prepared.effects(database.db);
          assert.deepEqual(effectsPerKey(keys, effects), { 1: keys.length }, `${route.name}: effects per key, {effects: keys}`);
          assert.deepEqual(keysAnsweredDifferently(outcome), [], `${route.name}: keys answered differently`);
          assert.equal(outcome.unanswered, 0, `${route.name}: copies unanswered`);
          const firsts = [...outcome.answers.values()].map((each) => each[0]);
          const odd = [...outcome.answers.values()].find((each) => each.length !== 5 || each[0]?.status !== route.status);
          assert.equal(odd, undefined, `${route.name}: a key not answered ${route.status} five times`);
          const answer = firsts[0];
          if (route.check !== undefined && answer !== undefined) await route.check(api, JSON.parse(answer.text) as Row);
        }
      } finally {
        for (const instance of instances) await instance.kill();
        await dispatcher.close();
        await database.close();
        await throwaway.drop();
      }
    });

    // SQLite takes its write lock for the whole transaction, so the test cannot hold one step of it back.
    for (const route of keyedRoutes) {
      test(
        `${route.name}: killed after the write and before storing the answer, a retry gets an answer, one effect`,
        { skip: target.dialect === 'sqlite' && 'the window is held open with row locks, which SQLite has not' },
        async () => {
          const throwaway = await target.create();
          const [victim, survivor] = await startInstances(throwaway, join(dataDir, `window-${route.name}`), 2);
          assert.ok(victim?.ready !== undefined && survivor?.ready !== undefined);
          const dispatcher = new Agent({ connect: { ca: victim.ready.certificate } });
          const database = await openDatabase<StoreSchema>(throwaway.url);
          const { db } = database;
          const call = caller(victim.ready, dispatcher);
          const key = `${route.name}-window`;
          try {
            const prepared = await route.prepare(apiOf(victim.ready, dispatcher), [key]);
            const { path, body } = prepared.requestOf(key);
            const release: (() => void)[] = [];
            /** Runs `statement` in a transaction kept open until released; answers once it ran, with the transaction's end. */
            const held = (statement: RawBuilder<unknown>) =>
              new Promise<{ ended: Promise<void> }>((resolve) => {
                const ended = db.transaction().execute(async (trx) => {
                  await statement.execute(trx);
                  await new Promise<void>((go) => {
                    release.push(go);
                    resolve({ ended });
                  });
                });
              });
            // The request claims its key, then stops before its write.
            const writeHeld = await held(prepared.holdOf(key, target.dialect === 'postgres' ? 'postgres' : 'mysql'));
            const lost = call(victim.ready.apiUrl, 'POST', path, body, key).catch(() => undefined);
            let claimed: string | undefined;
            while (claimed === undefined) {
              const row = await db.selectFrom('idempotency_keys').select('key_hash').where('status_code', 'is', null).executeTakeFirst();
              claimed = row === undefined ? undefined : String(row.key_hash);
              await sleep(20);
            }
            // The claim's row is locked, so storing the answer waits; then the write may go.
            const rowHeld = await held(sql`select key_hash from idempotency_keys where key_hash = ${claimed} for update`);
            release.shift()?.();
            await writeHeld.ended;
            // The store's session that waits to store the answer; ended with the process, so the answer never lands.
            const waitingOnAnswer =
              target.dialect === 'postgres'
                ? sql<{
                    pid: number;
                  }>`select pid from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'update "idempotency_keys"%'`
                : sql<{
                    pid: number;
                  }>`select id as pid from information_schema.processlist where command = 'Query' and info like 'update \`idempotency_keys\`%'`;
            const deadline = Date.now() + 10_000;
            let pid: number | undefined;
            while ((pid = (await waitingOnAnswer.execute(db)).rows[0]?.pid) === undefined) {
              assert.ok(Date.now() < deadline, 'the store never came to storing the answer');
              await sleep(20);
            }
            await victim.kill();
            await (
              target.dialect === 'postgres' ? sql`select pg_terminate_backend(${pid})` : sql`kill ${sql.raw(String(Number(pid)))}`
            ).execute(db);
            release.shift()?.();
            await rowHeld.ended;
            await lost;

            // A retry on the other instance: the stale claim is taken over (not 409 for 24 hours), and writes once.
            let retried: Answer & { replayed: boolean };
            const retryDeadline = Date.now() + 30_000;
            do {
              retried = await call(survivor.ready.apiUrl, 'POST', path, body, key);
              if (retried.status === 409) await sleep(500);
            } while (retried.status === 409 && Date.now() < retryDeadline);
            assert.equal(retried.status, route.status, retried.text);
            const again = await call(survivor.ready.apiUrl, 'POST', path, body, key);
            assert.equal(again.text, retried.text);
            assert.equal(again.replayed, true);
            assert.equal((await prepared.effects(db)).get(key), 1);
          } finally {
            await victim.kill();
            await survivor.kill();
            await dispatcher.close();
            await database.close();
            await throwaway.drop();
          }
        },
      );
    }
  });
}
