// Two instances on one database and one Redis: a write through one drops the other's cached reads.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { Agent, request } from 'undici';
import { serveStore } from '../src/server.ts';
import { REDIS_URL, redisSkip } from './support/targets.ts';
import { issueTestToken } from './support/test-token.ts';

const postgres = (await testDatabaseTargets()).find((t) => t.dialect === 'postgres');

const skip = postgres === undefined || postgres.skip !== false ? (postgres?.skip ?? 'PostgreSQL not configured') : await redisSkip();
if (skip !== false) console.log(`# skipping shared cache test: ${skip}`);

test('a write through one instance reaches reads through another within moments, not after max-age', { skip }, async () => {
  if (postgres === undefined) return;
  const throwaway = await postgres.create();
  const dataDir = mkdtempSync(join(tmpdir(), 'store-shared-'));
  const options = {
    databaseUrl: throwaway.url,
    dataDir,
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    redisUrl: REDIS_URL,
    without: { rateLimit: true },
  } as const;
  const one = await serveStore(options);
  const two = await serveStore(options);
  const dispatcher = new Agent({ connect: { ca: one.certificate } });
  const token = await issueTestToken(one.app, one.firstStart?.storeId ?? 1);
  const call = async (base: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: object) => {
    const headers = { 'x-ac-auth-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const response = await request(`${base}${path}`, {
      method,
      dispatcher,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
  };
  try {
    const made = await call(one.apiUrl, 'POST', '/products', { item_name: 'Shared', price: 1 });
    assert.equal((await call(two.apiUrl, 'GET', `/products/${String(made.json.id)}`)).json.price, 1); // now cached in two
    for (let price = 2; price <= 5; price += 1) {
      assert.equal((await call(one.apiUrl, 'PUT', `/products/${String(made.json.id)}`, { price })).status, 200);
      // Pub/sub takes a moment to cross; the read must turn current well within the max-age of 60 s.
      const deadline = Date.now() + 2000;
      let seen: unknown;
      while (Date.now() < deadline) {
        seen = (await call(two.apiUrl, 'GET', `/products/${String(made.json.id)}`)).json.price;
        if (seen === price) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(seen, price);
    }
  } finally {
    await dispatcher.close();
    await one.close();
    await two.close();
    await throwaway.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
