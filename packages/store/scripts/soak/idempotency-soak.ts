// `npm run soak:store`: Idempotency-Key under faults at full size. Three `store serve` instances on one private
// PostgreSQL and Redis behind HAProxy (scripts/cluster) get 2,000 keys x 5 copies of a POST (`--write`: record, the
// default, encrypted, cart-items, inventory or place-order, as test/support/keyed-routes.ts makes them), each key's
// copies sent at once through HAProxy, while instances are SIGKILLed and started again; a copy without an answer (connection
// lost, 409, 5xx) is sent again. Prints effects per key (the goal: every key exactly 1), keys whose copies got
// different answers (goal 0), copies never answered, and the load average.
// `--failover`: the database is PostgreSQL that fails over (scripts/cluster/postgres-ha.ts: Patroni, a synchronous
// standby, HAProxy to the primary), whose primary is SIGKILLed once mid-run; the write defaults to `product` (an
// event). Also prints the write downtime at the kill, acknowledged writes missing (a 2xx answer, no effect), the event
// log's holes, and how long the old primary took to be a standby again.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '@app/database';
import { privatePostgresUnavailableReason, startPrivatePostgres } from '@app/database/testing';
import { Agent, request } from 'undici';
import { keyedRoutes, type ApiCall } from '../../test/support/keyed-routes.ts';
import { startPrivateRedis } from '../../test/support/private-redis.ts';
import type { StoreSchema } from '../../src/db/schema.ts';
import { startCluster } from '../cluster/cluster.ts';
import { postgresHaUnavailableReason, startPostgresHa, type HaNode } from '../cluster/postgres-ha.ts';
import { checkEventLog, WriteTimeline } from './failover-checks.ts';
import { effectsPerKey, keysAnsweredDifferently, sendKeyedCopies } from './keyed-copies.ts';

const { values } = parseArgs({
  options: {
    keys: { type: 'string' },
    copies: { type: 'string' },
    instances: { type: 'string' },
    'kill-every': { type: 'string' },
    spacing: { type: 'string' },
    write: { type: 'string' },
    failover: { type: 'boolean' },
  },
});
const FAILOVER = values.failover === true;
const route = keyedRoutes.find((each) => each.name === (values.write ?? (FAILOVER ? 'product' : 'record')));
if (route === undefined) {
  console.error(`--write: one of ${keyedRoutes.map((each) => each.name).join(', ')}`);
  process.exit(1);
}
const KEYS = Number(values.keys ?? 2000);
const COPIES = Number(values.copies ?? 5);
const INSTANCES = Number(values.instances ?? 3);
const KILL_EVERY_MS = Number(values['kill-every'] ?? 8000);
/** A key's copies go this long after the previous key's: 2,000 keys take about a minute. */
const SPACING_MS = Number(values.spacing ?? 25);
// Each app may make 50 calls per 10 s: a few keys per app keep the load under its limit, retries included.
const KEYS_PER_APP = 4;

const unavailable = FAILOVER ? postgresHaUnavailableReason() : privatePostgresUnavailableReason();
if (unavailable !== undefined) {
  console.error(`soak:store needs a private PostgreSQL${FAILOVER ? ' that fails over' : ''}: ${unavailable}`);
  process.exit(1);
}
const loads = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const dir = mkdtempSync(join(tmpdir(), 'store-soak-'));
const postgres = FAILOVER ? await startPostgresHa({ durable: false }) : await startPrivatePostgres();
const redis = await startPrivateRedis();
const databaseUrl = await postgres.createDatabase('store');
const cluster = await startCluster({ databaseUrl, redisUrl: redis.url, dir: join(dir, 'cluster'), instances: INSTANCES });
const dispatcher = new Agent({ connect: { ca: cluster.certificate }, connections: 256 });
const database = await openDatabase<StoreSchema>(databaseUrl, { onConnectionError: () => undefined });
const timeline = new WriteTimeline();
let killing: NodeJS.Timeout | undefined;
let failingOver: NodeJS.Timeout | undefined;
/** The primary killed, once it has been, and how long after the kill it was a standby again. */
let oldPrimary: Promise<{ node: HaNode; standbyAfterMs: number }> | undefined;
/** The restart under way, awaited before the cluster stops. */
let restarting: Promise<void> = Promise.resolve();
try {
  const tokens = await cluster.tokens(Math.ceil(KEYS / KEYS_PER_APP));
  const keys = Array.from({ length: KEYS }, (_, i) => `soak-${route.name}-${i}`);
  const tokenOf = (key: string) => tokens[Math.floor(Number(key.slice(key.lastIndexOf('-') + 1)) / KEYS_PER_APP)] ?? '';
  // What the keys need is made through the API too, by every app in turn (each has its own rate limit).
  let calls = 0;
  const api: ApiCall = async (method, path, body) => {
    const response = await request(`${cluster.apiUrl}${path}`, {
      method: method as 'POST',
      dispatcher,
      headers: { 'x-ac-auth-token': tokens[(calls += 1) % tokens.length] ?? '', 'content-type': 'application/json' },
      body: JSON.stringify(body ?? null),
    });
    return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
  };
  const prepared = await route.prepare(api, keys);
  console.log(
    `${route.name}: ${KEYS} keys x ${COPIES} copies through HAProxy to ${INSTANCES} instances on PostgreSQL${FAILOVER ? ' that fails over (its primary SIGKILLed mid-run)' : ''}; an instance SIGKILLed every ${KILL_EVERY_MS / 1000} s; load average ${loads()}`,
  );
  const ha = 'killPrimaryPostgres' in postgres ? postgres : undefined;
  if (ha !== undefined)
    failingOver = setTimeout(
      () => {
        const killing = ha.killPrimaryPostgres().then(async ({ node, at }) => {
          timeline.killed(at);
          await ha.waitFor(node, 'replica', 180_000);
          return { node, standbyAfterMs: Date.now() - at };
        });
        // Awaited once the load is done; until then a failure must not end the process unreported.
        killing.catch(() => undefined);
        oldPrimary = killing;
      },
      (KEYS * SPACING_MS) / 2,
    );
  let kills = 0;
  killing = setInterval(() => {
    const victim = cluster.instances[kills % cluster.instances.length];
    kills += 1;
    if (victim === undefined || !victim.running) return;
    restarting = victim.kill().then(async () => {
      // A store does not start while its database is unreachable (as during a failover): try again, as a supervisor would.
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await victim.start();
        } catch (error) {
          if (attempt === 30) return console.error(`restarting ${victim.name}: ${String(error)}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    });
  }, KILL_EVERY_MS);
  const started = Date.now();
  const outcome = await sendKeyedCopies({
    keys,
    copies: COPIES,
    spacingMs: SPACING_MS,
    giveUpMs: 120_000,
    send: (key) =>
      timeline.send(async () => {
        const { path, body } = prepared.requestOf(key);
        const response = await request(`${cluster.apiUrl}${path}`, {
          method: 'POST',
          dispatcher,
          headers: { 'x-ac-auth-token': tokenOf(key), 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify(body),
        });
        const retryAfter = Number(response.headers['retry-after']);
        return {
          status: response.statusCode,
          text: await response.body.text(),
          ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterS: Math.min(retryAfter, 10) } : {}),
        };
      }),
  });
  clearInterval(killing);
  const effects = await prepared.effects(database.db);
  const differ = keysAnsweredDifferently(outcome);
  const tally = effectsPerKey(keys, effects);
  const statuses = new Map<number, number>();
  for (const each of outcome.answers.values())
    for (const answer of each) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  console.log(
    `${KEYS * COPIES} copies in ${((Date.now() - started) / 1000).toFixed(0)} s, ${outcome.attempts} attempts, ${kills} SIGKILLs; load average ${loads()}`,
  );
  console.log(
    `effects per key: ${Object.entries(tally)
      .map(([n, count]) => `${count} keys with ${n}`)
      .join(', ')} (goal: all ${KEYS} with 1)`,
  );
  console.log(
    `final answers by status: ${[...statuses].map(([status, n]) => `${status}: ${n}`).join(', ')}; copies never answered: ${outcome.unanswered}`,
  );
  console.log(
    `keys whose copies got different answers: ${differ.length} (goal 0)${differ.length > 0 ? `: ${differ.slice(0, 10).join(' ')}` : ''}`,
  );
  if (differ.length > 0 || Object.keys(tally).some((n) => n !== '1') || outcome.unanswered > 0) process.exitCode = 1;
  if (ha !== undefined) {
    // A key whose copy got a 2xx answer is an acknowledged write: its effect must be there after the failover.
    const acknowledged = [...outcome.answers].filter(([, each]) => each.some((answer) => answer.status >= 200 && answer.status < 300));
    const lost = acknowledged.filter(([key]) => (effects.get(key) ?? 0) === 0).map(([key]) => key);
    const [downtime] = timeline.downtimes();
    // Reading the log through the API numbers what the sequencer had not yet.
    await api('GET', '/events?count=1');
    const log = await checkEventLog(database.db, 'ProductCreated', route.name === 'product' ? timeline.acknowledged : new Set());
    console.log(
      `write downtime at failover: ${downtime === undefined ? 'writes never resumed' : `${(downtime / 1000).toFixed(1)} s`} (goal <= 30 s); acknowledged writes missing: ${lost.length} of ${acknowledged.length} (goal 0)${lost.length > 0 ? `: ${lost.slice(0, 10).join(' ')}` : ''}`,
    );
    console.log(
      `event log: ${log.events} events, holes: ${log.holes.length}, unnumbered: ${log.unnumbered}${route.name === 'product' ? `, acknowledged products without one ProductCreated: ${log.recordsWithoutOneEvent.length}` : ''} (goal 0); answers 503 by the store: ${timeline.unavailable}, 502-504 by HAProxy: ${timeline.proxied}, other than 2xx, 409, 429 and those: ${timeline.failures.length}${timeline.failures.length > 0 ? ` (first: ${timeline.failures[0]?.status} ${timeline.failures[0]?.text})` : ''}`,
    );
    const killed = await oldPrimary;
    if (killed !== undefined)
      console.log(
        `old primary ${killed.node.name} a standby again ${(killed.standbyAfterMs / 1000).toFixed(1)} s after it was killed; load average ${loads()}`,
      );
    if (
      downtime === undefined ||
      downtime > 30_000 ||
      lost.length > 0 ||
      log.holes.length > 0 ||
      log.unnumbered > 0 ||
      log.recordsWithoutOneEvent.length > 0 ||
      timeline.failures.length > 0
    )
      process.exitCode = 1;
  }
} finally {
  clearInterval(killing);
  clearTimeout(failingOver);
  await restarting;
  await cluster.stop();
  await dispatcher.close();
  await database.close();
  await redis.stop();
  await ('remove' in postgres ? postgres.remove() : postgres.stop());
  rmSync(dir, { recursive: true, force: true });
}
