// Attacks on sign-in and tokens that once worked: guessing concurrently past the lockout, replaying a
// spent refresh token, bouncing the signed-in admin to another site, and flooding with made-up tokens.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrateToLatest, openDatabase, type Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import type { FastifyInstance } from 'fastify';
import type { CompiledQuery } from 'kysely';
import { Agent, request } from 'undici';
import { buildStoreApp } from '../../src/app.ts';
import { createAdmin, signIn, type SignInResult } from '../../src/auth/admins.ts';
import { createApp } from '../../src/auth/apps.ts';
import { authContext, type AuthContext } from '../../src/auth/context.ts';
import { findCode, issueCode, redeemCode } from '../../src/auth/oauth-codes.ts';
import type { AuthTables } from '../../src/auth/schema.ts';
import { issueOAuthTokens, refreshTokens, resolveToken, type IssuedTokens } from '../../src/auth/tokens.ts';
import { safeNext } from '../../src/console/console-request.ts';
import { ensureStore } from '../../src/db/first-start.ts';
import { MIGRATION_PRODUCT, storeMigrations } from '../../src/db/migrations.ts';
import type { StoreSchema } from '../../src/db/schema.ts';
import { loadOrCreateCertificate } from '../../src/http/tls.ts';
import { FAILED_AUTH_LIMIT } from '../../src/limits/failed-auth.ts';
import { memoryWindowCounter, WINDOW_MS } from '../../src/limits/window-counter.ts';
import { sqliteTarget } from '../support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { cookiesOf, csrfIn, form, FORM } from './support/console-session.ts';

const issued = (result: IssuedTokens | 'wider' | undefined): IssuedTokens => {
  assert.ok(result !== undefined && result !== 'wider', 'the refresh should have worked');
  return result;
};

for (const target of await testDatabaseTargets()) {
  describe(`auth under attack on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<AuthTables>;
    let ctx: AuthContext;
    let storeId: number;

    before(async () => {
      throwaway = await target.create();
      database = await openDatabase<AuthTables>(throwaway.url, { poolSize: 20 });
      await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
      await database.db.insertInto('stores').values({ name: 'Test store', plan: 'gold', created_at: new Date().toISOString() }).execute();
      storeId = (await database.db.selectFrom('stores').select('id').executeTakeFirstOrThrow()).id;
      ctx = authContext({ db: database.db, dialect: database.dialect, key: randomBytes(32) });
      await createAdmin(ctx, storeId, { email: 'owner@example.com', password: 'the right password' });
    });
    /** Attempts whose password was checked: the ones the lockout let through are the ones it keeps. */
    const checked = async (address: string) =>
      Number(
        (
          await database.db
            .selectFrom('admin_login_attempts')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('address', '=', address)
            .executeTakeFirstOrThrow()
        ).n,
      );
    after(async () => {
      await database?.close();
      await throwaway?.drop();
    });

    test('48 concurrent wrong guesses from one address get the 5 tries the lockout allows, no more', async () => {
      const results = await Promise.all(Array.from({ length: 48 }, () => signIn(ctx, 'owner@example.com', 'a wrong guess', '203.0.113.7')));
      assert.ok(results.every((r) => !r.ok));
      assert.ok(
        (await checked('203.0.113.7')) <= ctx.lockout.maxFailures,
        `${await checked('203.0.113.7')} guesses had their password checked`,
      );
      // Guessing on, one at a time, until locked out: the checks add up to the limit exactly.
      for (let i = 0; i <= ctx.lockout.maxFailures; i += 1) {
        const next = await signIn(ctx, 'owner@example.com', 'another wrong guess', '203.0.113.7');
        if (!next.ok && next.reason === 'locked') break;
      }
      assert.equal(await checked('203.0.113.7'), ctx.lockout.maxFailures);
      assert.equal((await signIn(ctx, 'owner@example.com', 'the right password', '203.0.113.7')).ok, false, 'locked for that address');
    });

    test('30 concurrent wrong guesses with the right password among them: at most 5 checked, so no success after the 5th', async () => {
      const address = '203.0.113.8';
      const guesses = Array.from({ length: 31 }, (_, i) => (i === 30 ? 'the right password' : `wrong ${i}`));
      const results: SignInResult[] = await Promise.all(guesses.map((password) => signIn(ctx, 'owner@example.com', password, address)));
      assert.ok((await checked(address)) <= ctx.lockout.maxFailures, `${await checked(address)} passwords were checked`);
      assert.ok(results.filter((r) => r.ok).length <= 1);
      assert.equal(
        (await signIn(ctx, 'owner@example.com', 'the right password', '198.51.100.1')).ok,
        true,
        'another address still gets in',
      );
    });

    test('reusing a spent refresh token revokes every token of its grant, the one its first use issued included', async () => {
      const { app } = await createApp(ctx, storeId, { name: `Mobile ${target.name}`, kind: 'custom' });
      const first = await issueOAuthTokens(ctx, app, { scopes: ['read_catalog'], adminUserId: 1 });
      const second = issued(await refreshTokens(ctx, app, first.refreshToken ?? ''));
      const third = issued(await refreshTokens(ctx, app, second.refreshToken ?? ''));
      assert.ok('principal' in (await resolveToken(ctx, third.accessToken)));
      // An attacker replays the first refresh token, already spent by its owner.
      assert.equal(await refreshTokens(ctx, app, first.refreshToken ?? ''), undefined);
      assert.deepEqual(await resolveToken(ctx, third.accessToken), { problem: 'revoked' });
      assert.equal(await refreshTokens(ctx, app, third.refreshToken ?? ''), undefined, 'the newest refresh token is dead too');
    });

    test('replaying an authorization code revokes what its grant became after refreshes too', async () => {
      const { app } = await createApp(ctx, storeId, { name: `Web ${target.name}`, kind: 'custom', redirectUri: 'https://web.example/cb' });
      const { authId } = await issueCode(ctx, {
        app,
        adminUserId: 1,
        scopeText: 'read_catalog',
        scopes: ['read_catalog'],
        redirectUri: 'https://web.example/cb',
      });
      const stored = await findCode(ctx, { authId });
      assert.ok(stored !== undefined);
      const tokens = await redeemCode(ctx, stored, app);
      assert.ok(!('problem' in tokens));
      const refreshed = issued(await refreshTokens(ctx, app, tokens.refreshToken ?? ''));
      assert.deepEqual(await redeemCode(ctx, stored, app), { problem: 'reused' });
      assert.deepEqual(await resolveToken(ctx, refreshed.accessToken), { problem: 'revoked' });
    });
  });
}

test('after sign-in only this site is a destination, however next is spelled', () => {
  for (const hostile of [
    '/\t/evil.example',
    '/\\evil.example',
    '//evil.example',
    '/.//evil.example',
    '\t//evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '/a/../..//evil.example',
  ]) {
    assert.equal(safeNext(hostile), '/admin/apps', JSON.stringify(hostile));
  }
  assert.equal(safeNext('/api/oauth?client_id=1&scope=read_catalog'), '/api/oauth?client_id=1&scope=read_catalog');
  assert.equal(safeNext('/admin/apps/3\r\n'), '/admin/apps/3');
  assert.equal(safeNext('/ä?ü=ß'), '/%C3%A4?%C3%BC=%C3%9F');
});

describe('sign-in redirects over HTTPS', () => {
  let sut: StoreUnderTest;
  let origin: string;
  let cookie: string;
  before(async () => {
    sut = await startStoreUnderTest(await sqliteTarget());
    origin = new URL(sut.api).origin;
    const first = sut.store.firstStart;
    assert.ok(first !== undefined);
    const page = await sut.call('GET', `${origin}/admin/sign-in`);
    const pre = cookiesOf(page)['__Host-store_presession'];
    const reply = await sut.call('POST', `${origin}/admin/sign-in`, {
      rawBody: form({ _csrf: csrfIn(page.text), email: first.email, password: first.password, next: '/\t/evil.example' }),
      headers: { 'content-type': FORM, cookie: `__Host-store_presession=${pre}` },
    });
    assert.equal(reply.status, 303);
    assert.equal(reply.headers.location, '/admin/apps', 'a tab-split path is not a way out');
    cookie = `__Host-store_session=${cookiesOf(reply)['__Host-store_session']}`;
  });
  after(() => sut?.close());

  test('a signed-in admin sent to the sign-in page goes on to next, percent-encoded, and never elsewhere', async () => {
    const cases: [string, string][] = [
      ['/%09/evil.example', '/admin/apps'],
      ['/%09%5Cevil.example', '/admin/apps'],
      ['/admin/apps%0a', '/admin/apps'],
      ['/admin/%0d%0aX-Injected:%201', '/admin/X-Injected:%201'],
      ['/admin/%E2%82%AC', '/admin/%E2%82%AC'],
    ];
    for (const [next, location] of cases) {
      const reply = await sut.call('GET', `${origin}/admin/sign-in?next=${next}`, { headers: { cookie } });
      assert.equal(reply.status, 303, `${next}: ${reply.text}`);
      assert.equal(reply.headers.location, location, next);
      assert.equal(reply.headers['x-injected'], undefined);
    }
  });

  test('signed out, a console page asked for with a query of kilobytes sends to sign-in with a next= every client can read', async () => {
    const reply = await sut.call('GET', `${origin}/admin/webhooks?x=${'%22'.repeat(5000)}`);
    assert.equal(reply.status, 303);
    assert.equal(reply.headers.location, '/admin/sign-in?next=%2Fadmin%2Fwebhooks');
    const short = await sut.call('GET', `${origin}/admin/webhooks?saved=1`);
    assert.equal(short.headers.location, '/admin/sign-in?next=%2Fadmin%2Fwebhooks%3Fsaved%3D1', 'a usual query comes back');
  });
});

describe('a flood of made-up tokens', () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  let lookups = 0;
  let dispatcher: Agent;
  let origin: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'store-flood-'));

  before(async () => {
    const throwaway = await (await sqliteTarget()).create();
    const database = await openDatabase<StoreSchema>(throwaway.url);
    await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
    await ensureStore(database);
    const tls = await loadOrCreateCertificate({ dataDir });
    const stillAt = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 100;
    app = await buildStoreApp({
      database,
      tls,
      httpsPort: () => 443,
      logLevel: 'silent',
      // The limiter's clock stands still early in a window, so none ends during the test.
      rateLimit: { counter: memoryWindowCounter(), plan: () => 'gold', now: () => stillAt },
      cache: false,
    });
    // Counts the token lookups: every query that reads api_tokens.
    const ctx = app.storeAuth;
    const db = ctx.db;
    ctx.db = new Proxy(db, {
      get(target, name) {
        if (name !== 'executeQuery') {
          const value: unknown = Reflect.get(target, name);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        }
        return (query: CompiledQuery) => {
          if (query.sql.includes('api_tokens')) lookups += 1;
          return target.executeQuery(query);
        };
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    origin = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    dispatcher = new Agent({ connect: { ca: tls.cert } });
    close = async () => {
      await dispatcher.close();
      await app.close();
      await database.close();
      await throwaway.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  after(() => close?.());

  const call = async (token: string) => {
    const response = await request(`${origin}/api/v1/products`, { headers: { 'x-ac-auth-token': token }, dispatcher });
    const body = (await response.body.json()) as { status_code: number };
    assert.equal(body.status_code, response.statusCode);
    return response;
  };

  test('one address gets 401 for its first failures, then 429 with Retry-After and no database lookup', async () => {
    const before = lookups;
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch += 1) {
      const replies = await Promise.all(Array.from({ length: 20 }, () => call(randomBytes(32).toString('base64url'))));
      for (const reply of replies) {
        statuses.push(reply.statusCode);
        if (reply.statusCode === 429) assert.match(String(reply.headers['retry-after']), /^\d+$/);
      }
    }
    const refused = statuses.filter((s) => s === 401).length;
    assert.ok(refused >= FAILED_AUTH_LIMIT && refused <= FAILED_AUTH_LIMIT + 20, `${refused} answered 401`);
    assert.equal(statuses.filter((s) => s === 429).length, statuses.length - refused);
    assert.ok(lookups - before <= refused, `${lookups - before} token lookups for ${statuses.length} calls`);
  });

  test('the same bad token again and again is looked up once', async () => {
    const token = randomBytes(32).toString('base64url');
    await call(token);
    const before = lookups;
    for (let i = 0; i < 50; i += 1) assert.notEqual((await call(token)).statusCode, 200);
    assert.equal(lookups - before, 0, `${lookups - before} token lookups for 50 calls`);
  });
});
