// The servers under measurement, in their own process so the load generator does not share their CPU:
// the store API on SQLite, and a bare Fastify HTTPS route answering the same JSON (the ceiling).
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Agent, request } from 'undici';
import { serveStore } from '../../packages/store/src/server.ts';

import { postBody } from './post-body.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'bench-store-'));
const store = await serveStore({ databaseUrl: `sqlite:${join(dataDir, 'store.sqlite')}`, dataDir, host: '127.0.0.1', port: 0, logLevel: 'error' });
const dispatcher = new Agent({ connect: { ca: store.certificate } });

async function call(path: string, method: 'GET' | 'POST'): Promise<string> {
  const response = await request(`${store.apiUrl}${path}`, { method, dispatcher, ...(method === 'POST' ? { body: postBody, headers: { 'content-type': 'application/json' } } : {}) });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
  return text;
}

for (let i = 0; i < 150; i += 1) await call('/products.json', 'POST');
const listBody = await call('/products.json?count=100', 'GET');
const createdBody = await call('/products.json', 'POST');
await dispatcher.close();

const { loadOrCreateCertificate } = await import('../../packages/store/src/http/tls.ts');
const { cert, key } = await loadOrCreateCertificate({ dataDir });
const bare = Fastify({ https: { key, cert } });
bare.get('/api/v1/products.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(listBody));
bare.post('/api/v1/products.json', (_request, reply) => reply.code(201).type('application/json; charset=utf-8').send(createdBody));
await bare.listen({ host: '127.0.0.1', port: 0 });

process.send?.({ store: store.apiUrl.replace('/api/v1', ''), bare: `https://127.0.0.1:${(bare.server.address() as AddressInfo).port}`, ca: store.certificate });
process.on('disconnect', () => {
  void Promise.all([bare.close(), store.close()]).finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
