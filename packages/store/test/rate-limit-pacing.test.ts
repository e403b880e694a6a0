// A client that knows nothing of the store's plans and paces itself only by the IETF RateLimit-Policy and
// RateLimit fields (parsed as structured fields) makes its plan's full quota in every window and is never
// refused: from one instance, and round-robin over three instances counting in one Redis.
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { parseList } from 'structured-headers';
import type { Plan } from '../src/limits/plans.ts';
import { WINDOW_MS } from '../src/limits/window-counter.ts';
import { startStoreUnderTest, type Reply, type StoreUnderTest } from './support/store-under-test.ts';
import { issueTestToken } from './support/test-token.ts';
import { REDIS_URL, redisSkip, sqliteTarget } from './support/targets.ts';

const sqlite = await sqliteTarget();
const redisSkipReason = await redisSkip();

/** Simulated time, moved by the client's waits; starting 6.3 s into a window far from other suites' Redis keys. */
function simulatedClock() {
  let now = (Math.ceil(Date.now() / WINDOW_MS) + randomInt(1_000, 1_000_000)) * WINDOW_MS + 6_300;
  return { now: () => now, wait: (ms: number) => void (now += ms) };
}

/** The parameters of the field's "default" member, as a structured-field parser reads them. */
function defaultMember(reply: Reply, field: string): ReadonlyMap<string, unknown> {
  const value = reply.headers[field];
  assert.equal(typeof value, 'string', `every counted answer carries ${field}`);
  const member = parseList(value as string).find(([name]) => name === 'default');
  assert.ok(member !== undefined, `${field} names the "default" policy: ${String(value)}`);
  return member[1];
}

function integer(parameters: ReadonlyMap<string, unknown>, key: string): number {
  const value = parameters.get(key);
  assert.ok(typeof value === 'number' && Number.isInteger(value) && value >= 0, `${key} is a non-negative integer, not ${String(value)}`);
  return value;
}

interface PacedRun {
  statuses: number[];
  /** Calls admitted in each window the run touched, in order. */
  perWindow: number[];
  quota: number;
}

/** Calls for `windows` full windows, waiting only when RateLimit says nothing remains, and then only as long as it says. */
async function pacedRun(call: (i: number) => Promise<Reply>, clock: ReturnType<typeof simulatedClock>, windows: number): Promise<PacedRun> {
  const statuses: number[] = [];
  const admitted = new Map<number, number>();
  const firstWindow = Math.floor(clock.now() / WINDOW_MS);
  let quota = 0;
  for (let i = 0; Math.floor(clock.now() / WINDOW_MS) < firstWindow + windows; i += 1) {
    const window = Math.floor(clock.now() / WINDOW_MS);
    const reply = await call(i);
    statuses.push(reply.status);
    if (reply.status === 200) admitted.set(window, (admitted.get(window) ?? 0) + 1);
    const policy = defaultMember(reply, 'ratelimit-policy');
    quota = integer(policy, 'q');
    assert.equal(integer(policy, 'w'), WINDOW_MS / 1000);
    const left = defaultMember(reply, 'ratelimit');
    // A network round trip's worth of time passes between calls either way.
    clock.wait(40);
    if (integer(left, 'r') === 0) clock.wait(integer(left, 't') * 1000);
  }
  return { statuses, perWindow: [...admitted.values()], quota };
}

async function tokenOf(s: StoreUnderTest): Promise<Record<string, string>> {
  return { 'x-ac-auth-token': await issueTestToken(s.store.app, s.store.firstStart?.storeId ?? 1, 'system', randomUUID()) };
}

function assertFullRate(run: PacedRun, limit: number, windows: number): void {
  assert.equal(run.quota, limit, 'the policy states the plan limit');
  assert.deepEqual(
    run.statuses.filter((s) => s !== 200),
    [],
    'never refused',
  );
  assert.deepEqual(run.perWindow, Array<number>(windows).fill(limit), 'the whole quota used in every window');
}

describe('a client pacing by RateLimit alone', () => {
  const running: StoreUnderTest[] = [];
  after(async () => {
    for (const s of running) await s.close();
  });

  for (const [plan, limit] of [
    ['steel', 5],
    ['silver', 20],
  ] as [Plan, number][]) {
    test(`makes a ${plan} store's ${limit} calls in each of 4 windows with no 429, on one instance`, async () => {
      const clock = simulatedClock();
      const s = await startStoreUnderTest(sqlite, { plan, clock: clock.now, without: {} });
      running.push(s);
      const token = await tokenOf(s);
      assertFullRate(await pacedRun(() => s.call('GET', '/products', { headers: token }), clock, 4), limit, 4);
    });
  }

  test(
    "makes a gold store's 50 calls in each of 3 windows with no 429, round-robin over three instances sharing Redis",
    { skip: redisSkipReason },
    async () => {
      const clock = simulatedClock();
      const options = { plan: 'gold' as const, clock: clock.now, redisUrl: REDIS_URL, without: {} };
      const first = await startStoreUnderTest(sqlite, options);
      running.push(first);
      // One database behind three instances, as behind a load balancer.
      for (let i = 0; i < 2; i += 1) running.push(await startStoreUnderTest(sqlite, { ...options, databaseUrl: first.databaseUrl }));
      const instances = running.slice(-3);
      const token = await tokenOf(first);
      const run = await pacedRun((i) => instances[i % 3].call('GET', '/products', { headers: token }), clock, 3);
      assertFullRate(run, 50, 3);
    },
  );

  test('the same client, ignoring the fields, is refused: the pacing is what keeps it under the limit', async () => {
    const clock = simulatedClock();
    const s = await startStoreUnderTest(sqlite, { plan: 'steel', clock: clock.now, without: {} });
    running.push(s);
    const token = await tokenOf(s);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await s.call('GET', '/products', { headers: token })).status);
      clock.wait(40);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
  });
});
