import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrateToLatest, openDatabase } from '@app/database';
import { plainGet } from './support/plain-get.ts';
import { sqliteTarget } from './support/targets.ts';
import { request } from 'undici';
import { buildStoreApp } from '../src/app.ts';
import { ResponseCache } from '../src/cache/response-cache.ts';
import { ensureStore } from '../src/db/first-start.ts';
import { MIGRATION_PRODUCT, storeMigrations } from '../src/db/migrations.ts';
import { memoryWindowCounter } from '../src/limits/window-counter.ts';
import { serveStore } from '../src/server.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';
import { issueTestToken } from './support/test-token.ts';
import type { StoreSchema } from '../src/db/schema.ts';

const sqlite = await sqliteTarget();

describe('HTTPS only', () => {
  let s: StoreUnderTest;
  before(async () => {
    s = await startStoreUnderTest(sqlite, { httpPort: 0 });
    await s.call('POST', '/products', { body: { item_name: 'Secret' } });
  });
  after(() => s?.close());

  test('the API answers over TLS with HSTS, using a self-signed certificate kept under the data directory', async () => {
    const reply = await s.call('GET', '/products.json');
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['strict-transport-security']), /max-age=\d{7,}/);
    assert.match(s.store.certificate, /BEGIN CERTIFICATE/);
  });

  test('a client that does not trust the certificate is refused by TLS', async () => {
    await assert.rejects(request(`${s.api}/products`), /self-signed|certificate/i);
  });

  test('plain HTTP only redirects to HTTPS and never serves data', async () => {
    const port = s.store.httpPort;
    assert.ok(port !== undefined);
    for (const path of ['/api/v1/products.json?count=5', '/api/v1/products/1', '/']) {
      const reply = await plainGet(port, path, { host: `127.0.0.1:${port}` });
      assert.equal(reply.status, 308);
      assert.equal(reply.location, `https://127.0.0.1:${s.store.port}${path}`);
      assert.equal(reply.body, '');
    }
  });
});

test('a certificate made on first start is kept under the data directory and reused', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'store-cert-'));
  const throwaway = await sqlite.create();
  try {
    const options = { databaseUrl: throwaway.url, dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent' } as const;
    const first = await serveStore(options);
    await first.close();
    assert.equal(readFileSync(join(dataDir, 'tls', 'store-cert.pem'), 'utf8'), first.certificate);
    const second = await serveStore(options);
    await second.close();
    assert.equal(second.certificate, first.certificate);
    assert.ok(first.firstStart !== undefined, 'the first start makes the store and its admin');
    assert.equal(second.firstStart, undefined, 'the admin credentials are printed only once');
  } finally {
    await throwaway.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('behind a TLS-terminating proxy', () => {
  async function proxied(trustedProxies: string[]) {
    const throwaway = await sqlite.create();
    const database = await openDatabase<StoreSchema>(throwaway.url);
    await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
    const store = await ensureStore(database);
    const app = await buildStoreApp({
      database,
      httpsPort: () => 443,
      trustedProxies,
      // The name clients reach the proxy by.
      hosts: { listenHost: '127.0.0.1', names: ['shop.example'] },
      logLevel: 'silent',
      rateLimit: { counter: memoryWindowCounter(), plan: () => 'gold' },
      cache: new ResponseCache(),
    });
    const token = await issueTestToken(app, store?.storeId ?? 1, 'read_catalog');
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    return {
      port,
      token,
      close: async () => {
        await app.close();
        await database.close();
        await throwaway.drop();
      },
    };
  }

  test('X-Forwarded-Proto https from a trusted proxy is served, and page links use https', async () => {
    const proxy = await proxied(['127.0.0.1']);
    try {
      const reply = await plainGet(proxy.port, '/api/v1/products.json', {
        host: 'shop.example',
        'x-forwarded-proto': 'https',
        'x-ac-auth-token': proxy.token,
      });
      assert.equal(reply.status, 200);
      assert.deepEqual(JSON.parse(reply.body), { total_count: 0, products: [] });
      const bare = await plainGet(proxy.port, '/api/v1/products.json', { host: 'shop.example' });
      assert.equal(bare.status, 308);
      assert.equal(bare.location, 'https://shop.example/api/v1/products.json');
      // Nor may a trusted proxy pass on a host name the store was not configured for.
      const foreign = await plainGet(proxy.port, '/api/v1/products.json?count=1', {
        host: 'shop.example',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'evil.example',
        'x-ac-auth-token': proxy.token,
      });
      assert.equal(foreign.status, 421, foreign.body);
      assert.doesNotMatch(foreign.body, /evil/);
    } finally {
      await proxy.close();
    }
  });

  test('X-Forwarded-Proto from an address that is not a trusted proxy counts for nothing', async () => {
    const proxy = await proxied(['192.0.2.1']);
    try {
      const reply = await plainGet(proxy.port, '/api/v1/products.json', {
        host: 'shop.example',
        'x-forwarded-proto': 'https',
        'x-ac-auth-token': proxy.token,
      });
      assert.equal(reply.status, 308);
      assert.equal(reply.body, '');
    } finally {
      await proxy.close();
    }
  });
});
