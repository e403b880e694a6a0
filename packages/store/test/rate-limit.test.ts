/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- replies are JSON checked by assertions */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, mock, test } from 'node:test';
import Fastify from 'fastify';
import type { Plan } from '../src/limits/plans.ts';
import { errorFormat } from '../src/http/error-format.ts';
import { ApiError } from '../src/model/api-error.ts';
import { rateLimit } from '../src/limits/rate-limit.ts';
import { memoryWindowCounter, WINDOW_MS } from '../src/limits/window-counter.ts';
import { startStoreUnderTest, type Reply, type StoreUnderTest } from './support/store-under-test.ts';
import { issueTestToken } from './support/test-token.ts';
import { REDIS_URL, redisSkip, sqliteTarget } from './support/targets.ts';

const sqlite = await sqliteTarget();

const redisSkipReason = await redisSkip();

/** A clock the test moves by hand, starting 100 ms into a window. */
function manualClock() {
  let now = Math.ceil(Date.now() / WINDOW_MS) * WINDOW_MS + 100;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A token of a fresh custom app: its own counter. */
async function tokenOf(s: StoreUnderTest): Promise<Record<string, string>> {
  return { 'x-ac-auth-token': await issueTestToken(s.store.app, s.store.firstStart?.storeId ?? 1, 'system', randomUUID()) };
}

function callLimit(reply: Reply): string {
  return String(reply.headers['x-ac-call-limit']);
}

describe('rate limiting per plan', () => {
  const running: StoreUnderTest[] = [];
  after(async () => {
    for (const s of running) await s.close();
  });

  for (const [plan, limit] of [
    ['steel', 5],
    ['bronze', 10],
    ['silver', 20],
    ['gold', 50],
    ['platinum', 50],
  ] as [Plan, number][]) {
    test(`a ${plan} store admits exactly ${limit} calls per 10-second window for one custom app token`, async () => {
      const clock = manualClock();
      const s = await startStoreUnderTest(sqlite, { plan, clock: clock.now, without: {} });
      running.push(s);
      const token = await tokenOf(s);
      for (let i = 1; i <= limit; i += 1) {
        const reply = await s.call('GET', '/products', { headers: token });
        assert.equal(reply.status, 200);
        assert.equal(callLimit(reply), `${i}/${limit}`);
        assert.equal(reply.headers['ratelimit-policy'], `"default";q=${limit};w=10`);
        assert.equal(reply.headers['ratelimit'], `"default";r=${limit - i};t=10`);
      }
      clock.advance(3_400);
      const refused = await s.call('GET', '/products', { headers: token });
      assert.equal(refused.status, 429);
      assert.deepEqual(refused.json, { status_code: 429, message: 'Too Many Requests', details: refused.json.details });
      assert.equal(callLimit(refused), `${limit}/${limit}`);
      assert.equal(refused.headers['retry-after'], '7', 'whole seconds until the window resets (6.5 s, rounded up)');
      assert.equal(refused.headers['ratelimit'], `"default";r=0;t=7`);
      assert.equal(refused.headers['cache-control'], 'no-store');
      // Another token is another custom app's counter.
      const other = await s.call('GET', '/products', { headers: await tokenOf(s) });
      assert.equal(other.status, 200);
      assert.equal(callLimit(other), `1/${limit}`);
    });
  }

  test('the window resets on the 10-second boundary, and errors carry the header too', async () => {
    const clock = manualClock();
    const s = await startStoreUnderTest(sqlite, { plan: 'steel', clock: clock.now, without: {} });
    running.push(s);
    const token = await tokenOf(s);
    const notFound = await s.call('GET', '/products/424242', { headers: token });
    assert.equal(notFound.status, 404);
    assert.equal(callLimit(notFound), '1/5');
    const badRequest = await s.call('POST', '/products', { headers: token, body: { colour: 'red' } });
    assert.equal(badRequest.status, 400);
    assert.equal(callLimit(badRequest), '2/5');
    const noRoute = await s.call('GET', '/nowhere', { headers: token });
    assert.equal(callLimit(noRoute), '3/5');
    for (let i = 0; i < 2; i += 1) await s.call('GET', '/products', { headers: token });
    assert.equal((await s.call('GET', '/products', { headers: token })).status, 429);
    clock.advance(WINDOW_MS - 200); // 100 ms before the boundary
    const still = await s.call('GET', '/products', { headers: token });
    assert.equal(still.status, 429);
    assert.equal(still.headers['retry-after'], '1');
    clock.advance(100); // on the boundary
    const fresh = await s.call('GET', '/products', { headers: token });
    assert.equal(fresh.status, 200);
    assert.equal(callLimit(fresh), '1/5');
  });
});

describe('rate limiting keyed on the authenticated principal', () => {
  // The auth plugin (issue 9) sets request.principal; this stands in for it with the same shape.
  async function appWith(principals: Record<string, object>, clock: () => number) {
    const app = Fastify();
    await app.register(errorFormat);
    app.addHook('onRequest', (request, _reply, done) => {
      const principal = principals[String(request.headers['x-ac-auth-token'])];
      if (principal === undefined) return done(new ApiError(401, 'unknown token'));
      (request as unknown as { principal: object }).principal = principal;
      done();
    });
    await app.register(rateLimit, { counter: memoryWindowCounter(), plan: () => 'steel', now: clock });
    app.get('/things', () => ({ ok: true }));
    return app;
  }

  test('installed apps of one store share a single limit of 50, whatever the plan', async () => {
    const clock = manualClock();
    const app = await appWith(
      {
        a: { kind: 'token', storeId: 1, appId: 10, appKind: 'installed', tokenId: 1, scopes: [] },
        b: { kind: 'token', storeId: 1, appId: 11, appKind: 'installed', tokenId: 2, scopes: [] },
        c: { kind: 'token', storeId: 1, appId: 12, appKind: 'custom', tokenId: 3, scopes: [] },
      },
      clock.now,
    );
    for (let i = 1; i <= 50; i += 1) {
      const reply = await app.inject({ method: 'GET', url: '/things', headers: { 'x-ac-auth-token': i % 2 === 0 ? 'a' : 'b' } });
      assert.equal(reply.statusCode, 200);
      assert.equal(reply.headers['x-ac-call-limit'], `${i}/50`);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/things', headers: { 'x-ac-auth-token': 'a' } })).statusCode, 429);
    assert.equal((await app.inject({ method: 'GET', url: '/things', headers: { 'x-ac-auth-token': 'b' } })).statusCode, 429);
    const custom = await app.inject({ method: 'GET', url: '/things', headers: { 'x-ac-auth-token': 'c' } });
    assert.equal(custom.statusCode, 200, 'a custom app has its own, plan-set limit');
    assert.equal(custom.headers['x-ac-call-limit'], '1/5');
    await app.close();
  });

  test('a call refused by authentication (401) is counted and carries the header', async () => {
    const clock = manualClock();
    const app = await appWith({}, clock.now);
    const reply = await app.inject({ method: 'GET', url: '/things', headers: { 'x-ac-auth-token': 'nope' } });
    assert.equal(reply.statusCode, 401);
    assert.equal(reply.headers['x-ac-call-limit'], '1/5');
    assert.equal(
      (await app.inject({ method: 'GET', url: '/things', headers: { 'x-ac-auth-token': 'nope' } })).headers['x-ac-call-limit'],
      '2/5',
    );
    await app.close();
  });
});

describe('rate limits shared through Redis', { skip: redisSkipReason }, () => {
  test('two API instances on one Redis hold one limit between them', async () => {
    const clock = manualClock();
    const options = { plan: 'bronze' as const, clock: clock.now, redisUrl: REDIS_URL, without: {} };
    const one = await startStoreUnderTest(sqlite, options);
    // Both instances serve one database, as behind a load balancer.
    const two = await startStoreUnderTest(sqlite, { ...options, databaseUrl: one.databaseUrl });
    try {
      const token = await tokenOf(one);
      const statuses: number[] = [];
      for (let i = 0; i < 14; i += 1) statuses.push((await (i % 2 === 0 ? one : two).call('GET', '/products', { headers: token })).status);
      assert.deepEqual(statuses, [...Array<number>(10).fill(200), 429, 429, 429, 429]);
      const last = await two.call('GET', '/products', { headers: token });
      assert.equal(callLimit(last), '10/10');
    } finally {
      await one.close();
      await two.close();
    }
  });

  test('with Redis unreachable the API keeps serving under a local limit, and says so in the log', async () => {
    const warn = mock.method(console, 'warn', () => undefined);
    const clock = manualClock();
    const s = await startStoreUnderTest(sqlite, { plan: 'steel', clock: clock.now, redisUrl: 'redis://127.0.0.1:1', without: {} });
    try {
      const token = await tokenOf(s);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) statuses.push((await s.call('GET', '/products', { headers: token })).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
      assert.ok(warn.mock.calls.some((call) => /Redis.*unreachable.*per instance/i.test(String(call.arguments[0]))));
    } finally {
      warn.mock.restore();
      await s.close();
    }
  });
});
