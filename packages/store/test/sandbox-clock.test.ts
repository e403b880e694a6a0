// A sandbox store's clock moves forward on request (POST /sandbox/clock, `store sandbox clock`), and what ages
// with time ages with it: OAuth codes and access tokens, idempotency keys, the event log. Outside sandbox mode
// the clock is real time and the request is refused in the store's error format.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { createApp } from '../src/auth/apps.ts';
import { issueCode } from '../src/auth/oauth-codes.ts';
import { parseScopes } from '../src/auth/scopes.ts';
import { sandboxCommand } from '../src/cli/sandbox-commands.ts';
import { parseDuration } from '../src/db/sandbox-clock.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';

const DAY = 86_400_000;
const REDIRECT = 'https://app.example/callback';

test('durations read as integrators write them', () => {
  assert.equal(parseDuration('30d'), 30 * DAY);
  assert.equal(parseDuration('1d12h'), 1.5 * DAY);
  assert.equal(parseDuration('90s'), 90_000);
  for (const bad of ['', '-1d', '1.5d', '30', 'd', '1y', '0s']) assert.equal(parseDuration(bad), undefined, bad);
});

for (const target of await testDatabaseTargets()) {
  describe(`the sandbox clock on ${target.name}`, { skip: target.skip }, () => {
    let sandbox: StoreUnderTest;
    let real: StoreUnderTest;
    const said: string[] = [];
    const io = { out: (line: string) => said.push(line), err: (line: string) => said.push(line), ask: () => Promise.resolve('') };
    let dataDir: string;
    before(async () => {
      sandbox = await startStoreUnderTest(target, { sandbox: true });
      real = await startStoreUnderTest(target);
      dataDir = mkdtempSync(join(tmpdir(), 'store-clock-'));
      process.env.DATA_DIR = dataDir;
    });
    after(async () => {
      delete process.env.DATA_DIR;
      await sandbox?.close();
      await real?.close();
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    });

    const clockNow = async (s: StoreUnderTest) => Date.parse(((await s.call('GET', '/sandbox/clock')).json as { now: string }).now);
    const advance = (s: StoreUnderTest, by: string) => s.call('POST', '/sandbox/clock', { body: { advance: by } });

    test('outside sandbox mode the clock cannot be moved: 403 in the error format, from the API and the CLI', async () => {
      for (const reply of [await real.call('GET', '/sandbox/clock'), await advance(real, '30d')]) {
        assert.equal(reply.status, 403);
        assert.deepEqual(Object.keys(reply.json as object), ['status_code', 'message', 'details']);
        assert.match((reply.json as { details: string }).details, /not in sandbox mode/);
      }
      said.length = 0;
      assert.equal(await sandboxCommand(['clock', '--advance', '1d', '--database', real.databaseUrl], io), 1);
      assert.match(said.join('\n'), /not in sandbox mode/);
    });

    test('POST {"advance":"30d"} moves the time 30 days on; a bad duration is a 400', async () => {
      const before = await clockNow(sandbox);
      const moved = await advance(sandbox, '30d');
      assert.equal(moved.status, 200, moved.text);
      const now = Date.parse((moved.json as { now: string }).now);
      assert.ok(now - before >= 30 * DAY && now - before < 30 * DAY + 60_000, `${now - before} ms`);
      const bad = await advance(sandbox, '-3d');
      assert.equal(bad.status, 400);
      assert.equal((bad.json as { status_code: number }).status_code, 400);
    });

    test('`store sandbox clock --advance` moves a running store within a second', async () => {
      const before = await clockNow(sandbox);
      said.length = 0;
      assert.equal(await sandboxCommand(['clock', '--advance', '2d', '--database', sandbox.databaseUrl], io), 0, said.join('\n'));
      assert.match(said.join('\n'), /sandbox time \d{4}-.*ms ahead of real time/);
      let seen = before;
      for (let i = 0; i < 20 && seen - before < 2 * DAY; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        seen = await clockNow(sandbox);
      }
      assert.ok(seen - before >= 2 * DAY, `the store took the CLI's move: ${seen - before} ms`);
    });

    test('OAuth codes (2 minutes) and access tokens (1 hour) expire on the sandbox clock', async () => {
      const ctx = sandbox.store.app.storeAuth;
      const storeId = sandbox.store.firstStart?.storeId ?? 1;
      const { app: client, secret } = await createApp(ctx, storeId, {
        name: `Clock ${randomUUID()}`,
        kind: 'custom',
        redirectUri: REDIRECT,
      });
      const origin = new URL(sandbox.api).origin;
      const exchange = async (code: string) =>
        sandbox.call('POST', `${origin}/api/oauth/token`, {
          body: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client.clientId, client_secret: secret },
          anonymous: true,
        });
      const grant = () =>
        issueCode(ctx, {
          app: client,
          adminUserId: 1,
          scopeText: 'read_catalog',
          scopes: parseScopes('read_catalog'),
          redirectUri: REDIRECT,
        });

      const stale = await grant();
      assert.equal((await advance(sandbox, '3m')).status, 200);
      const late = await exchange(stale.code);
      assert.equal(late.status, 400);
      assert.equal((late.json as { error: string }).error, 'invalid_grant');

      const fresh = await exchange((await grant()).code);
      assert.equal(fresh.status, 200, fresh.text);
      const token = (fresh.json as { access_token: string }).access_token;
      assert.equal((await sandbox.call('GET', '/products', { headers: { 'x-ac-auth-token': token } })).status, 200);
      assert.equal((await advance(sandbox, '61m')).status, 200);
      assert.equal(
        (await sandbox.call('GET', '/products', { headers: { 'x-ac-auth-token': token } })).status,
        401,
        'the access token expired',
      );
    });

    test('an idempotency key answers again within 24 hours of the sandbox clock and runs afresh after', async () => {
      const key = randomUUID();
      const post = () => sandbox.call('POST', '/categories', { body: { name: `Clock ${key}` }, headers: { 'idempotency-key': key } });
      const first = await post();
      assert.equal(first.status, 201, first.text);
      const again = await post();
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal((again.json as { id: number }).id, (first.json as { id: number }).id);
      assert.equal((await advance(sandbox, '25h')).status, 200);
      const later = await post();
      assert.equal(later.headers['idempotent-replayed'], undefined);
      assert.notEqual((later.json as { id: number }).id, (first.json as { id: number }).id);
    });

    test('a bulk export made in sandbox time: its link lasts an hour of that time, and its file a week', async () => {
      // More than a week ahead of real time: a job stamped in real time would be past keeping already.
      assert.equal((await advance(sandbox, '8d')).status, 200);
      const started = await sandbox.call('POST', '/bulk_operations', { body: { type: 'export', resource: 'customers', query: 'sort=id' } });
      assert.equal(started.status, 202, started.text);
      const id = (started.json as { id: number }).id;
      type Job = { state: string; result_url: string | null };
      let job: Job = started.json as Job;
      for (let i = 0; i < 200 && job.state !== 'completed'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        job = (await sandbox.call('GET', `/bulk_operations/${id}`)).json as Job;
      }
      assert.equal(job.state, 'completed');
      const link = job.result_url ?? '';
      assert.equal((await sandbox.call('GET', link, { anonymous: true })).status, 200);
      assert.equal((await advance(sandbox, '61m')).status, 200);
      assert.equal((await sandbox.call('GET', link, { anonymous: true })).status, 403, 'the link expired an hour of sandbox time on');
      const fresh = ((await sandbox.call('GET', `/bulk_operations/${id}`)).json as Job).result_url ?? '';
      assert.equal((await sandbox.call('GET', fresh, { anonymous: true })).status, 200, 'a fresh link works');
      assert.equal((await advance(sandbox, '8d')).status, 200);
      assert.equal(
        ((await sandbox.call('GET', `/bulk_operations/${id}`)).json as Job).result_url,
        null,
        'the file is kept a week of sandbox time',
      );
    });

    test('the event log keeps 30 days of the sandbox clock: an event 31 days old is purged as the clock moves, one 2 days old stays', async () => {
      const customer = async () => {
        const made = await sandbox.call('POST', '/customers', {
          body: { email: `${randomUUID()}@example.com`, first_name: 'Clock', last_name: 'Test' },
        });
        assert.equal(made.status, 201, made.text);
        return (made.json as { id: number }).id;
      };
      const logged = async () =>
        ((await sandbox.call('GET', '/events?types=CustomerCreated')).json as { events: { record_id: number }[] }).events.map(
          (e) => e.record_id,
        );
      const old = await customer();
      assert.ok((await logged()).includes(old), 'the write is in the log');
      assert.equal((await advance(sandbox, '29d')).status, 200);
      assert.ok((await logged()).includes(old), 'stamped in sandbox time: 29 days old, still kept');
      const recent = await customer();
      // The log always keeps its newest numbered event (numbering goes on from it); reading numbers the recent one.
      assert.deepEqual(await logged(), [old, recent]);
      assert.equal((await advance(sandbox, '2d')).status, 200);
      assert.deepEqual(await logged(), [recent]);
    });
  });
}
