// Profiles the store's no-cache read path: serves a seeded store in this process (run it with `node --cpu-prof`),
// loads GET /products.json?count=N with Cache-Control: no-cache from a child autocannon for a few seconds, then exits.
// node bench/store/profile-read.ts [count] [profile.cpuprofile]: the profile covers the load only, not the seeding.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { serveStore } from '../../packages/store/src/server.ts';
import { createApp } from '../../packages/store/src/auth/apps.ts';
import { createConsoleToken } from '../../packages/store/src/auth/tokens.ts';
import { seedBody } from './post-body.ts';

const count = Number(process.argv[2] ?? 100);
const dataDir = mkdtempSync(join(tmpdir(), 'profile-store-'));
const store = await serveStore({ databaseUrl: `sqlite:${join(dataDir, 'store.sqlite')}`, dataDir, host: '127.0.0.1', port: 0, logLevel: 'error' });
const tokens: string[] = [];
for (let i = 0; i < 2000; i += 1) {
  const { app } = await createApp(store.app.storeAuth, store.firstStart?.storeId ?? 1, { name: `profile ${i}`, kind: 'custom' });
  tokens.push((await createConsoleToken(store.app.storeAuth, app, { scopes: 'system' })).accessToken);
}
const dispatcher = new Agent({ connect: { ca: store.certificate } });
for (let i = 0; i < 1050; i += 1) {
  const response = await request(`${store.apiUrl}/products.json`, { method: 'POST', dispatcher, body: seedBody(i), headers: { 'content-type': 'application/json', 'x-ac-auth-token': tokens[i % tokens.length] ?? '' } });
  await response.body.text();
}
await dispatcher.close();
let next = 0;
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.start');
const result = await autocannon({
  url: store.apiUrl.replace('/api/v1', ''),
  connections: 8,
  duration: Number(process.env.BENCH_DURATION ?? 6),
  tlsOptions: { ca: store.certificate },
  requests: [{ method: 'GET', path: `/api/v1/products.json?count=${count}`, setupRequest: (r) => ({ ...r, headers: { ...r.headers, 'cache-control': 'no-cache', 'x-ac-auth-token': tokens[next++ % tokens.length] ?? '' } }) }],
});
const { profile } = await session.post('Profiler.stop');
writeFileSync(process.argv[3] ?? 'read.cpuprofile', JSON.stringify(profile));
console.log(`${result.requests.average} req/s, non-2xx ${result.non2xx}, errors ${result.errors}`);
await store.close();
rmSync(dataDir, { recursive: true, force: true });
