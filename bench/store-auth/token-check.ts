// What authentication costs per API call: one Fastify app, one database, two routes answering the same
// JSON; one is public, the other resolves X-AC-Auth-Token (SHA-256, one indexed join) and checks its
// scope. Interleaved rounds, in process (inject), on SQLite; prints calls/s for each and the ratio.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '@app/database';
import Fastify from 'fastify';
import type { Kysely } from 'kysely';
import {
  createApp,
  authPlugin,
  authContext,
  createConsoleToken,
  ensureStore,
  MIGRATION_PRODUCT,
  storeMigrations,
  type AuthTables,
  type StoreSchema,
} from '@app/store/testing';

const CALLS = Number(process.env.BENCH_CALLS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKENS = 1000;

const dir = mkdtempSync(join(tmpdir(), 'bench-store-auth-'));
const database = await openDatabase<StoreSchema>(`sqlite:${join(dir, 'store.sqlite')}`);
try {
  await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
  const storeId = (await ensureStore(database))?.storeId ?? 1;
  const ctx = authContext({ db: database.db as unknown as Kysely<AuthTables>, dialect: database.dialect, key: randomBytes(32) });
  const { app: client } = await createApp(ctx, storeId, { name: 'bench', kind: 'custom' });
  // Many live tokens, so the lookup works on an index of realistic size.
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i += 1) tokens.push((await createConsoleToken(ctx, client, { scopes: 'read_catalog' })).accessToken);

  const app = Fastify();
  await app.register(authPlugin, { ctx, apiPrefix: '/api/v1' });
  const answer = { total_count: 0, products: [] };
  app.get('/api/v1/open', { config: { public: true } }, () => answer);
  app.get('/api/v1/guarded', { config: { resource: 'products', scope: 'catalog', access: 'read' } }, () => answer);
  await app.ready();

  async function rate(url: string, withToken: boolean, cold = false): Promise<number> {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i += 1) {
      if (cold) ctx.principals.clear();
      const reply = await app.inject({ method: 'GET', url, headers: withToken ? { 'x-ac-auth-token': tokens[i % TOKENS] ?? '' } : {} });
      if (reply.statusCode !== 200) throw new Error(`${url}: ${reply.statusCode} ${reply.body}`);
    }
    return CALLS / (Number(process.hrtime.bigint() - started) / 1e9);
  }

  await rate('/api/v1/open', false); // warm-up
  const open: number[] = [];
  const hot: number[] = [];
  const cold: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    open.push(await rate('/api/v1/open', false));
    hot.push(await rate('/api/v1/guarded', true));
    cold.push(await rate('/api/v1/guarded', true, true));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const o = median(open);
  const line = (label: string, rate: number, baseline?: number) =>
    `  ${label.padEnd(44)} ${rate.toFixed(0).padStart(7)} calls/s  ${(1e6 / rate).toFixed(0).padStart(5)} us/call` +
    (baseline === undefined
      ? ''
      : `  ratio ${((rate / baseline) * 100).toFixed(1)}%, auth adds ${(1e6 / rate - 1e6 / baseline).toFixed(0)} us`);
  console.log(`token check cost, in process on SQLite (${TOKENS} live tokens, ${CALLS} calls x ${ROUNDS} interleaved rounds, median)`);
  console.log(line('public route (baseline)', o));
  console.log(line('token + scope, principal cached', median(hot), o));
  console.log(line('token + scope, looked up every call', median(cold), o));
  await app.close();
} finally {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
