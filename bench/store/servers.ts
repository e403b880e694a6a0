// The servers under measurement, in their own process so the load generator does not share their CPU:
// the store API as served (rate limiting + caching), the same store without those two, a bare Fastify
// HTTPS route answering the same JSON (the ceiling), the read peer (a bare Fastify route that runs the
// store's SELECT on the same SQLite file through node:sqlite and serialises the rows, nothing else), and the
// store as served with one webhook subscription to ProductCreated, delivering to a receiver in another process.
// All on one certificate; each store on its own SQLite.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '@app/database';
import Fastify from 'fastify';
import { Agent, request } from 'undici';
import { serveStore, type RunningStore, type ServeOptions } from '@app/store';
import {
  loadOrCreateCertificate,
  createApp,
  createConsoleToken,
  jsonObjectText,
  resourceNamed,
  type StoreSchema,
} from '@app/store/testing';
import { postBody, seedBody } from './post-body.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'bench-store-'));
const tls = await loadOrCreateCertificate({ dataDir });

// Calls spread over many custom apps' tokens, so each is counted and authenticated but none is refused:
// a gold app may make 50 calls per 10 s, so N apps carry 5·N calls a second (8,000: 40,000/s, more than
// the bare route serves here). Below the principal cache's 10,000 entries, so tokens stay cached.
const TOKEN_APPS = Number(process.env.BENCH_TOKEN_APPS ?? 8000);
const SEEDED = 1050;

async function benchTokens(store: RunningStore): Promise<string[]> {
  const ctx = store.app.storeAuth;
  const tokens: string[] = [];
  for (let i = 0; i < TOKEN_APPS; i += 1) {
    const { app } = await createApp(ctx, store.firstStart?.storeId ?? 1, { name: `bench ${i}`, kind: 'custom' });
    tokens.push((await createConsoleToken(ctx, app, { scopes: 'system' })).accessToken);
  }
  return tokens;
}

async function seededStore(
  name: string,
  without: { rateLimit?: boolean; cache?: boolean },
  extra: Partial<ServeOptions> = {},
): Promise<{ store: RunningStore; tokens: string[] }> {
  const store = await serveStore({
    databaseUrl: `sqlite:${join(dataDir, `${name}.sqlite`)}`,
    dataDir,
    host: '127.0.0.1',
    port: 0,
    logLevel: 'error',
    without,
    ...extra,
  });
  const tokens = await benchTokens(store);
  const dispatcher = new Agent({ connect: { ca: tls.cert } });
  // Enough for a list of 1000, every field filled, as a real catalogue's products are.
  for (let i = 0; i < SEEDED; i += 1) {
    const response = await request(`${store.apiUrl}/products.json`, {
      method: 'POST',
      dispatcher,
      body: seedBody(i),
      headers: { 'content-type': 'application/json', 'x-ac-auth-token': tokens[i % tokens.length] ?? '' },
    });
    await response.body.text();
    if (response.statusCode !== 201) throw new Error(`seeding ${name}: ${response.statusCode}`);
  }
  await dispatcher.close();
  return { store, tokens };
}

async function body(url: string, method: 'GET' | 'POST', token: string): Promise<string> {
  const dispatcher = new Agent({ connect: { ca: tls.cert } });
  const response = await request(url, {
    method,
    dispatcher,
    headers: { 'x-ac-auth-token': token, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    ...(method === 'POST' ? { body: postBody } : {}),
  });
  const text = await response.body.text();
  await dispatcher.close();
  return text;
}

const { store: full, tokens: fullTokens } = await seededStore('full', {});
const { store: plain, tokens: plainTokens } = await seededStore('plain', { rateLimit: true, cache: true });
const receiver = fork(new URL('./webhook-receiver.ts', import.meta.url), [dataDir], { stdio: 'inherit' });
const [{ port: receiverPort }] = (await once(receiver, 'message')) as [{ port: number }];
const { store: hooked, tokens: hookedTokens } = await seededStore(
  'hooked',
  {},
  { webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: tls.cert } },
);
{
  const dispatcher = new Agent({ connect: { ca: tls.cert } });
  const response = await request(`${hooked.apiUrl}/webhooks`, {
    method: 'POST',
    dispatcher,
    body: JSON.stringify({ event_type: 'ProductCreated', url: `https://127.0.0.1:${receiverPort}/hook` }),
    headers: { 'content-type': 'application/json', 'x-ac-auth-token': hookedTokens[0] ?? '' },
  });
  await response.body.text();
  if (response.statusCode !== 201) throw new Error(`subscribing: ${response.statusCode}`);
  await dispatcher.close();
}
const hookedDatabase = await openDatabase<StoreSchema>(`sqlite:${join(dataDir, 'hooked.sqlite')}`);
const listBody = await body(`${plain.apiUrl}/products.json?count=100`, 'GET', plainTokens[0] ?? '');
const createdBody = await body(`${plain.apiUrl}/products.json`, 'POST', plainTokens[0] ?? '');

const bare = Fastify({ https: { key: tls.key, cert: tls.cert } });
bare.get('/api/v1/products.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(listBody));
bare.post('/api/v1/products.json', (_request, reply) => reply.code(201).type('application/json; charset=utf-8').send(createdBody));
await bare.listen({ host: '127.0.0.1', port: 0 });

// The write peer, "a bare Fastify + database route": each POST inserts the product into the store's own products
// table (a copy of the seeded store's file, same pragmas as the store's SQLite) through node:sqlite, one
// autocommitted INSERT ... RETURNING *, and answers the row as JSON. No auth, limits, validation, events or cache.
const bareDbFile = join(dataDir, 'bare-db.sqlite');
{
  const source = new DatabaseSync(join(dataDir, 'plain.sqlite'));
  source.exec(`VACUUM INTO '${bareDbFile}'`);
  source.close();
}
const bareDbSqlite = new DatabaseSync(bareDbFile);
bareDbSqlite.exec('PRAGMA journal_mode = WAL');
bareDbSqlite.exec('PRAGMA synchronous = NORMAL');
bareDbSqlite.exec('PRAGMA foreign_keys = ON');
const bareInsert = bareDbSqlite.prepare(
  'insert into "products" ("item_name", "item_number", "price", "quantity_on_hand", "is_hidden", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?) returning *',
);
const bareDb = Fastify({ https: { key: tls.key, cert: tls.cert } });
bareDb.post('/api/v1/products.json', (request, reply) => {
  const body = request.body as { item_name: string; item_number: string; price: number; quantity_on_hand: number; is_hidden: boolean };
  const now = new Date().toISOString();
  const row = bareInsert.get(body.item_name, body.item_number, body.price, body.quantity_on_hand, body.is_hidden ? 1 : 0, now, now);
  return reply
    .code(201)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ product: row }));
});
await bareDb.listen({ host: '127.0.0.1', port: 0 });

// The read peer: the SELECT the store runs for GET /products?count=N (every column, id order, one row more to
// learn whether a next page exists), on the same file, its rows serialised as they come.
const peerDb = new DatabaseSync(join(dataDir, 'full.sqlite'), { readOnly: true });
const peerSelect = peerDb.prepare('select * from "products" order by "id" asc limit ? offset ?');
const peer = Fastify({ https: { key: tls.key, cert: tls.cert } });
peer.get('/api/v1/products.json', (request, reply) => {
  const count = Number((request.query as { count?: string }).count ?? 100);
  const rows = peerSelect.all(count + 1, 0);
  return reply.type('application/json; charset=utf-8').send(JSON.stringify({ total_count: rows.length, products: rows.slice(0, count) }));
});
await peer.listen({ host: '127.0.0.1', port: 0 });

// The same peer with the store's own technique on SQLite: the database writes each product's JSON
// (the SELECT the store runs, from the same module), joined into the envelope, nothing else. The store's
// distance to it is what its machinery (auth, limits, caching, the query language) costs.
const peerJsonSelect = peerDb.prepare(
  `select ${jsonObjectText(resourceNamed('products'), undefined) ?? ''} as "__json", "id" from "products" order by "id" asc limit ? offset ?`,
);
peerJsonSelect.setReturnArrays(true);
const peerJson = Fastify({ https: { key: tls.key, cert: tls.cert } });
peerJson.get('/api/v1/products.json', (request, reply) => {
  const count = Number((request.query as { count?: string }).count ?? 100);
  const rows = peerJsonSelect.all(count + 1, 0) as unknown as unknown[][];
  const texts = rows.slice(0, count).map((row) => row[0] as string);
  return reply.type('application/json; charset=utf-8').send(`{"total_count":${rows.length},"products":[${texts.join(',')}]}`);
});
await peerJson.listen({ host: '127.0.0.1', port: 0 });

const origin = (url: string) => url.replace('/api/v1', '');
process.send?.({
  full: origin(full.apiUrl),
  plain: origin(plain.apiUrl),
  hooked: origin(hooked.apiUrl),
  bare: `https://127.0.0.1:${(bare.server.address() as AddressInfo).port}`,
  bareDb: `https://127.0.0.1:${(bareDb.server.address() as AddressInfo).port}`,
  peer: `https://127.0.0.1:${(peer.server.address() as AddressInfo).port}`,
  peerJson: `https://127.0.0.1:${(peerJson.server.address() as AddressInfo).port}`,
  ca: tls.cert,
  tokens: {
    full: fullTokens,
    plain: plainTokens,
    bare: fullTokens,
    bareDb: fullTokens,
    peer: fullTokens,
    peerJson: fullTokens,
    hooked: hookedTokens,
  },
});
// The load generator asks for this process's CPU time before and after each run: the servers take turns,
// so the difference is what the server under load spent, a steadier figure than req/s on a shared machine.
process.on('message', (message: unknown) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  // How far the webhook deliveries are behind the writes that caused them.
  if (message === 'deliveries') {
    void hookedDatabase.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow()
      .then((row) => process.send?.({ pending: Number(row.n) }));
  }
  // Every event the writes produced, and what the receiver saw (how many, how many out of order).
  if (message === 'backlog') {
    void hookedDatabase.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum(eb.case().when('state', '=', 'pending').then(1).else(0).end()).as('pending')])
      .executeTakeFirstOrThrow()
      .then(async (row) => {
        receiver.send('received');
        const [seen] = (await once(receiver, 'message')) as [{ received: number; outOfOrder: number }];
        process.send?.({ produced: Number(row.n), pending: Number(row.pending ?? 0), ...seen });
      });
  }
});
process.on('disconnect', () => {
  peerDb.close();
  bareDbSqlite.close();
  receiver.disconnect();
  void Promise.all([
    bare.close(),
    bareDb.close(),
    peer.close(),
    peerJson.close(),
    full.close(),
    plain.close(),
    hooked.close(),
    hookedDatabase.close(),
  ]).finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
