// The store on PostgreSQL that fails over (scripts/cluster/postgres-ha.ts: etcd, a Patroni primary and synchronous
// standby, HAProxy to the primary), all private to this test. Under a load of keyed writes that are events (two
// copies of each key at once, retried as a client would), the primary's postmaster is SIGKILLed; once the old
// primary is back as the synchronous standby, the new primary is killed too. Each time writes must resume within
// 30 s with the same store process; after both: every key has one effect and one answer, every record a 2xx answer
// acknowledged is there, the event log is numbered without a hole with one event per record, no answer was other
// than 2xx or a retryable 503/409, and the first old primary is a standby again.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { Agent, request } from 'undici';
import { postgresHaUnavailableReason, startPostgresHa, type HaNode } from '../scripts/cluster/postgres-ha.ts';
import { checkEventLog, missingRecords, WriteTimeline } from '../scripts/soak/failover-checks.ts';
import { effectsPerKey, keysAnsweredDifferently, sendKeyedCopies } from '../scripts/soak/keyed-copies.ts';
import type { StoreSchema } from '../src/db/schema.ts';
import type { ServeOptions } from '../src/server.ts';
import { keyedRoutes } from './support/keyed-routes.ts';

const MAX_DOWNTIME_MS = 30_000;

function missing(): string | false {
  const reason = postgresHaUnavailableReason();
  if (reason === undefined) return false;
  // CI installs Patroni, etcd and HAProxy (.ci/run): there a missing one is a failure, never a quiet skip.
  if (process.env.CI === 'true') throw new Error(`PostgreSQL HA: ${reason}, and CI=true`);
  console.log(`# skipping: PostgreSQL HA ${reason}`);
  return `PostgreSQL HA ${reason}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, timeoutMs: number, check: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    assert.ok(Date.now() < deadline, what);
    await sleep(100);
  }
}

describe('the store on PostgreSQL that fails over', { skip: missing() }, () => {
  test(
    'primary killed twice under keyed writes: writes resume within 30 s, nothing acknowledged lost, no hole in the event log',
    { timeout: 240_000 },
    async () => {
      const route = keyedRoutes.find((each) => each.name === 'product');
      assert.ok(route !== undefined);
      const ha = await startPostgresHa({ durable: false });
      const dataDir = mkdtempSync(join(tmpdir(), 'store-failover-'));
      const stopLoad = new AbortController();
      let dispatcher: Agent | undefined;
      const options: ServeOptions = {
        databaseUrl: await ha.createDatabase('store'),
        dataDir,
        host: '127.0.0.1',
        port: 0,
        logLevel: 'silent',
        without: { rateLimit: true },
      };
      const store = fork(new URL('./support/store-process.ts', import.meta.url), [JSON.stringify(options)], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      // Its connections break at each kill too; the pool replaces them.
      const database = await openDatabase<StoreSchema>(options.databaseUrl, { onConnectionError: () => undefined });
      try {
        const [ready] = (await once(store, 'message')) as [{ apiUrl: string; certificate: string; token: string }];
        dispatcher = new Agent({ connect: { ca: ready.certificate }, connections: 64 });
        const agent = dispatcher;
        const call = async (method: 'GET' | 'POST', path: string, body?: unknown, key?: string) => {
          const response = await request(`${ready.apiUrl}${path}`, {
            method,
            dispatcher: agent,
            headers: {
              'x-ac-auth-token': ready.token,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
              ...(key === undefined ? {} : { 'idempotency-key': key }),
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          const retryAfter = Number(response.headers['retry-after']);
          return {
            status: response.statusCode,
            text: await response.body.text(),
            ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterS: retryAfter } : {}),
          };
        };
        const prepared = await route.prepare(() => Promise.reject(new Error('the product route needs nothing made')), []);
        const timeline = new WriteTimeline();
        const keys = Array.from({ length: 20_000 }, (_, i) => `failover-${i}`);
        const load = sendKeyedCopies({
          keys,
          copies: 2,
          spacingMs: 20,
          giveUpMs: 60_000,
          stop: stopLoad.signal,
          send: (key) => {
            const { path, body } = prepared.requestOf(key);
            return timeline.send(() => call('POST', path, body, key));
          },
        });

        const failOver = async (which: number): Promise<HaNode> => {
          await sleep(2000);
          const { node: killed, at } = await ha.killPrimaryPostgres();
          timeline.killed(at);
          await until(`writes did not resume within 60 s of kill ${which}`, 60_000, () => timeline.downtimes()[which - 1] !== undefined);
          return killed;
        };
        const first = await failOver(1);
        // Back as a standby, and the synchronous one: only then may its partner fail without losing a commit.
        await ha.waitFor(first, 'replica', 60_000);
        await ha.waitFor(first, 'sync', 30_000);
        const second = await failOver(2);
        await sleep(1000);
        stopLoad.abort();
        const outcome = await load;

        const downtimes = timeline.downtimes();
        console.log(
          `# ${outcome.answers.size} keys x 2 copies, ${outcome.attempts} attempts; ${timeline.unavailable} answered 503; write downtime at the kills: ${downtimes.map((ms) => (ms === undefined ? 'never resumed' : `${(ms / 1000).toFixed(1)} s`)).join(', ')}; killed ${first.name}, then ${second.name}`,
        );
        for (const ms of downtimes) assert.ok(ms !== undefined && ms <= MAX_DOWNTIME_MS, `write downtime ${ms} ms`);
        assert.equal(store.exitCode, null, 'the store kept running');
        assert.deepEqual(timeline.failures, [], 'answers other than 2xx, 409 or the store’s 503 with Retry-After');
        assert.equal(timeline.proxied, 0, 'no proxy stands before this store: every answer is its own');
        assert.ok(timeline.unavailable > 0, 'writes during the failover were answered 503');
        const started = [...outcome.answers.keys()];
        assert.deepEqual(effectsPerKey(started, await prepared.effects(database.db)), { 1: started.length }, '{effects: keys}');
        assert.deepEqual(keysAnsweredDifferently(outcome), []);
        assert.equal(outcome.unanswered, 0);
        assert.equal(timeline.acknowledged.size, started.length, 'one record acknowledged per key');
        assert.deepEqual(await missingRecords(database.db, 'products', timeline.acknowledged), [], 'acknowledged products missing');

        // Reading the log through the API numbers what the sequencer had not yet.
        const read = await call('GET', '/events?types=ProductCreated&count=1');
        assert.equal(read.status, 200, read.text);
        const log = await checkEventLog(database.db, 'ProductCreated', timeline.acknowledged);
        assert.deepEqual(log.holes, [], 'event log positions missing');
        assert.equal(log.unnumbered, 0);
        assert.deepEqual(log.recordsWithoutOneEvent, [], 'acknowledged products without exactly one ProductCreated');

        await ha.waitFor(second, 'replica', 60_000);
      } finally {
        stopLoad.abort();
        if (store.exitCode === null && store.signalCode === null) {
          const exited = once(store, 'exit');
          store.kill('SIGKILL');
          await exited;
        }
        await dispatcher?.close();
        await database.close();
        await ha.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
