// Profiles the store under one kind of load: serves a seeded store in this process, loads it from a child
// autocannon for a few seconds, and writes a CPU profile of the load only, not the seeding.
//   node bench/store/profile.ts read [count] [read.cpuprofile]   no-cache GET /products.json?count=N (default 100)
//   node bench/store/profile.ts write [write.cpuprofile]         POST /products.json, the body bench:store posts
//   node bench/store/profile.ts hooked [hooked.cpuprofile]       the same with one ProductCreated subscription
//                                                                 (its receiver in another process)
// On SQLite, or on an empty database given by PROFILE_DATABASE_URL (postgres://..., mysql://...).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { serveStore } from '@app/store';
import { loadOrCreateCertificate, createApp, createConsoleToken } from '@app/store/testing';
import { postBody, seedBody } from './post-body.ts';

const [mode = 'read', ...rest] = process.argv.slice(2);
if (mode !== 'read' && mode !== 'write' && mode !== 'hooked')
  throw new Error(`usage: profile.ts read [count] [file] | write [file] | hooked [file] (not ${mode})`);
const count = mode === 'read' ? Number(rest[0] ?? 100) : 0;
const file = (mode === 'read' ? rest[1] : rest[0]) ?? `${mode}.cpuprofile`;

const dataDir = mkdtempSync(join(tmpdir(), 'profile-store-'));
const receiver = mode === 'hooked' ? fork(new URL('./webhook-receiver.ts', import.meta.url), [dataDir], { stdio: 'inherit' }) : undefined;
const receiverPort = receiver === undefined ? 0 : ((await once(receiver, 'message')) as [{ port: number }])[0].port;
const store = await serveStore({
  databaseUrl: process.env.PROFILE_DATABASE_URL ?? `sqlite:${join(dataDir, 'store.sqlite')}`,
  dataDir,
  host: '127.0.0.1',
  port: 0,
  logLevel: 'error',
  // The receiver serves the store's certificate: both load the one in dataDir.
  ...(receiver === undefined
    ? {}
    : { webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: (await loadOrCreateCertificate({ dataDir })).cert } }),
});
// Many apps' tokens, so no caller reaches its rate limit.
const tokens: string[] = [];
for (let i = 0; i < 2000; i += 1) {
  const { app } = await createApp(store.app.storeAuth, store.firstStart?.storeId ?? 1, { name: `profile ${i}`, kind: 'custom' });
  tokens.push((await createConsoleToken(store.app.storeAuth, app, { scopes: 'system' })).accessToken);
}
const dispatcher = new Agent({ connect: { ca: store.certificate } });
for (let i = 0; i < 1050; i += 1) {
  const response = await request(`${store.apiUrl}/products.json`, {
    method: 'POST',
    dispatcher,
    body: seedBody(i),
    headers: { 'content-type': 'application/json', 'x-ac-auth-token': tokens[i % tokens.length] ?? '' },
  });
  await response.body.text();
}
if (receiver !== undefined) {
  const response = await request(`${store.apiUrl}/webhooks`, {
    method: 'POST',
    dispatcher,
    body: JSON.stringify({ event_type: 'ProductCreated', url: `https://127.0.0.1:${receiverPort}/hook` }),
    headers: { 'content-type': 'application/json', 'x-ac-auth-token': tokens[0] ?? '' },
  });
  if (response.statusCode !== 201) throw new Error(`subscribing: ${response.statusCode} ${await response.body.text()}`);
  await response.body.text();
}
await dispatcher.close();
let next = 0;
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.start');
const loaded =
  mode === 'read'
    ? { method: 'GET' as const, path: `/api/v1/products.json?count=${count}`, headers: { 'cache-control': 'no-cache' } }
    : { method: 'POST' as const, path: '/api/v1/products.json', body: postBody, headers: { 'content-type': 'application/json' } };
const result = await autocannon({
  url: store.apiUrl.replace('/api/v1', ''),
  connections: mode === 'read' ? 8 : 16,
  duration: Number(process.env.BENCH_DURATION ?? 6),
  tlsOptions: { ca: store.certificate },
  requests: [
    {
      ...loaded,
      setupRequest: (r) => ({
        ...r,
        headers: { ...r.headers, ...loaded.headers, 'x-ac-auth-token': tokens[next++ % tokens.length] ?? '' },
      }),
    },
  ],
});
const { profile } = await session.post('Profiler.stop');
writeFileSync(file, JSON.stringify(profile));
console.log(`${result.requests.average} req/s, non-2xx ${result.non2xx}, errors ${result.errors}`);
await store.close();
receiver?.disconnect();
rmSync(dataDir, { recursive: true, force: true });
