/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any -- replies are JSON checked by assertions */
// Events survive the store process dying right after the write, and several instances on one database
// deliver each event once, in order.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { testDatabaseTargets } from '@app/database/testing';
import { Agent, request } from 'undici';
import type { StoreSchema } from '../../src/db/schema.ts';
import { serveStore, type RunningStore, type ServeOptions } from '../../src/server.ts';
import { sqliteTarget } from '../support/targets.ts';
import { issueTestToken } from '../support/test-token.ts';
import { receiverCertificate, startReceiver } from './receiver.ts';

const quickRetry = { firstDelayMs: 100, maxDelayMs: 300, windowMs: 60_000 };

function client(apiUrl: string, certificate: string, token: string) {
  const dispatcher = new Agent({ connect: { ca: certificate } });
  return {
    async call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<any> {
      const response = await request(`${apiUrl}${path}`, {
        method,
        dispatcher,
        headers: { 'x-ac-auth-token': token, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.body.text();
      assert.ok(response.statusCode < 300, `${method} ${path}: ${response.statusCode} ${text}`);
      return JSON.parse(text);
    },
    close: () => dispatcher.close(),
  };
}

describe('webhook events when the store process is killed', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'store-crash-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('an event written just before the kill arrives once a new process starts', async () => {
    const target = await sqliteTarget();
    const throwaway = await target.create();
    const tls = await receiverCertificate();
    // The receiver is down while the first process runs, so nothing can be delivered before the kill.
    const probe = await startReceiver({ tls });
    const port = probe.port;
    await probe.close();
    const webhooks = { allowedNetworks: ['127.0.0.0/8'], ca: tls.cert, pollMs: 100, retry: quickRetry, timeoutMs: 1000 };
    const options: ServeOptions = {
      databaseUrl: throwaway.url,
      dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      without: { rateLimit: true },
      webhooks,
    };
    const child = fork(new URL('../support/store-process.ts', import.meta.url), [JSON.stringify(options)], { stdio: 'inherit' });
    let restarted: RunningStore | undefined;
    try {
      const [ready] = (await once(child, 'message')) as [{ apiUrl: string; certificate: string; token: string }];
      const api = client(ready.apiUrl, ready.certificate, ready.token);
      const subscription = await api.call('POST', '/webhooks', {
        event_type: 'ProductCreated',
        url: `https://127.0.0.1:${port}/after-crash`,
      });
      const product = await api.call('POST', '/products', { item_name: 'Written before the crash' });
      await api.close();
      child.kill('SIGKILL');
      await once(child, 'exit');

      const receiver = await startReceiver({ port, tls });
      try {
        restarted = await serveStore({ ...options });
        const [got] = await receiver.waitFor('/after-crash', 1);
        assert.deepEqual(got?.json, { product });
        const database = await openDatabase<StoreSchema>(throwaway.url);
        try {
          const deadline = Date.now() + 5000;
          let row;
          do
            row = await database.db
              .selectFrom('webhook_deliveries')
              .selectAll()
              .where('subscription_id', '=', subscription.id)
              .executeTakeFirst();
          while (row?.state !== 'delivered' && Date.now() < deadline && (await new Promise((r) => setTimeout(r, 50))) === undefined);
          assert.equal(row?.state, 'delivered');
        } finally {
          await database.close();
        }
      } finally {
        await receiver.close();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await restarted?.close();
      await throwaway.drop();
    }
  });
});

for (const target of await testDatabaseTargets()) {
  describe(`two store instances on one ${target.name} database`, { skip: target.skip }, () => {
    test('deliver each event once, in the order written', async () => {
      const throwaway = await target.create();
      const dataDir = mkdtempSync(join(tmpdir(), 'store-pair-'));
      const receiver = await startReceiver();
      const options: ServeOptions = {
        databaseUrl: throwaway.url,
        dataDir,
        host: '127.0.0.1',
        port: 0,
        logLevel: 'silent',
        without: { rateLimit: true },
        webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, pollMs: 50, retry: quickRetry },
      };
      const stores: RunningStore[] = [];
      const clients: ReturnType<typeof client>[] = [];
      try {
        stores.push(await serveStore(options));
        // Same data directory: the same server key, so both sign with the same App Secret.
        stores.push(await serveStore(options));
        for (const store of stores)
          clients.push(client(store.apiUrl, store.certificate, await issueTestToken(store.app, store.firstStart?.storeId ?? 1)));
        const [a, b] = clients as [ReturnType<typeof client>, ReturnType<typeof client>];
        await a.call('POST', '/webhooks', { event_type: 'ProductCreated', url: `${receiver.origin}/pair` });
        receiver.answer('/pair', { status: 500 }, { status: 200 });
        const ids: number[] = [];
        for (let i = 0; i < 20; i++) ids.push((await (i % 2 === 0 ? a : b).call('POST', '/products', { item_name: `Pair ${i}` })).id);
        const got = await receiver.waitFor('/pair', 21);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const arrived = receiver.received.filter((r) => r.path === '/pair').map((r) => (r.json as any).product.id as number);
        // The first arrives twice (its first answer was a 500); every other exactly once, in order.
        assert.deepEqual(arrived, [ids[0], ...ids], `arrived ${got.length}`);
      } finally {
        for (const c of clients) await c.close();
        for (const store of stores) await store.close();
        await receiver.close();
        await throwaway.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
