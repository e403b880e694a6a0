// The servers under measurement, in their own process so the load generator does not share their CPU:
// the store API as served (rate limiting + caching), the same store without those two, and a bare Fastify
// HTTPS route answering the same JSON (the ceiling). All on one certificate; each store on its own SQLite.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Agent, request } from 'undici';
import { loadOrCreateCertificate } from '../../packages/store/src/http/tls.ts';
import { serveStore, type RunningStore } from '../../packages/store/src/server.ts';
import { createApp } from '../../packages/store/src/auth/apps.ts';
import { createConsoleToken } from '../../packages/store/src/auth/tokens.ts';
import { postBody } from './post-body.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'bench-store-'));
const tls = await loadOrCreateCertificate({ dataDir });

// Calls spread over many custom apps' tokens, so each is counted and authenticated but none is refused.
const TOKEN_APPS = Number(process.env.BENCH_TOKEN_APPS ?? 2000);

async function benchTokens(store: RunningStore): Promise<string[]> {
  const ctx = store.app.storeAuth;
  const tokens: string[] = [];
  for (let i = 0; i < TOKEN_APPS; i += 1) {
    const { app } = await createApp(ctx, store.firstStart?.storeId ?? 1, { name: `bench ${i}`, kind: 'custom' });
    tokens.push((await createConsoleToken(ctx, app, { scopes: 'system' })).accessToken);
  }
  return tokens;
}

async function seededStore(name: string, without: { rateLimit?: boolean; cache?: boolean }): Promise<{ store: RunningStore; tokens: string[] }> {
  const store = await serveStore({ databaseUrl: `sqlite:${join(dataDir, `${name}.sqlite`)}`, dataDir, host: '127.0.0.1', port: 0, logLevel: 'error', without });
  const tokens = await benchTokens(store);
  const dispatcher = new Agent({ connect: { ca: tls.cert } });
  for (let i = 0; i < 150; i += 1) {
    const response = await request(`${store.apiUrl}/products.json`, { method: 'POST', dispatcher, body: postBody, headers: { 'content-type': 'application/json', 'x-ac-auth-token': tokens[i % tokens.length] ?? '' } });
    await response.body.text();
    if (response.statusCode !== 201) throw new Error(`seeding ${name}: ${response.statusCode}`);
  }
  await dispatcher.close();
  return { store, tokens };
}

async function body(url: string, method: 'GET' | 'POST', token: string): Promise<string> {
  const dispatcher = new Agent({ connect: { ca: tls.cert } });
  const response = await request(url, { method, dispatcher, headers: { 'x-ac-auth-token': token, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) }, ...(method === 'POST' ? { body: postBody } : {}) });
  const text = await response.body.text();
  await dispatcher.close();
  return text;
}

const { store: full, tokens: fullTokens } = await seededStore('full', {});
const { store: plain, tokens: plainTokens } = await seededStore('plain', { rateLimit: true, cache: true });
const listBody = await body(`${plain.apiUrl}/products.json?count=100`, 'GET', plainTokens[0] ?? '');
const createdBody = await body(`${plain.apiUrl}/products.json`, 'POST', plainTokens[0] ?? '');

const bare = Fastify({ https: { key: tls.key, cert: tls.cert } });
bare.get('/api/v1/products.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(listBody));
bare.post('/api/v1/products.json', (_request, reply) => reply.code(201).type('application/json; charset=utf-8').send(createdBody));
await bare.listen({ host: '127.0.0.1', port: 0 });

const origin = (url: string) => url.replace('/api/v1', '');
process.send?.({
  full: origin(full.apiUrl),
  plain: origin(plain.apiUrl),
  bare: `https://127.0.0.1:${(bare.server.address() as AddressInfo).port}`,
  ca: tls.cert,
  tokens: { full: fullTokens, plain: plainTokens, bare: fullTokens },
});
// The load generator asks for this process's CPU time before and after each run: the servers take turns,
// so the difference is what the server under load spent, a steadier figure than req/s on a shared machine.
process.on('message', (message: unknown) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
});
process.on('disconnect', () => {
  void Promise.all([bare.close(), full.close(), plain.close()]).finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
