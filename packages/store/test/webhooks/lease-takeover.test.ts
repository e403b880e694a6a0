/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// A subscription leased by another instance waits while that instance lives, and is taken over at once when it is
// gone (its session lock freed with its connection), not when the lease's time runs out: ten minutes here.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { holdSessionLock, openDatabase, type SessionLock } from '@app/database';
import type { StoreDatabase, StoreSchema } from '../../src/db/schema.ts';
import { describeOnEachDatabase } from '../support/each-database.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const receiver: Receiver = await startReceiver();

await describeOnEachDatabase(
  'a lease whose holder is gone',
  (s, target) => {
    const skip = target.dialect === 'sqlite' && 'SQLite has no session locks: a lease is held until its time runs out';
    let database: StoreDatabase;
    before(async () => {
      if (skip !== false) return;
      database = await openDatabase<StoreSchema>(s.databaseUrl);
    });
    after(async () => {
      await database?.close();
    });

    const subscribe = async (path: string): Promise<number> => {
      const made = await s.call('POST', '/webhooks', { body: { event_type: 'ProductCreated', url: `${receiver.origin}${path}` } });
      assert.equal(made.status, 201, made.text);
      return made.json.id as number;
    };
    const leaseTo = (id: number, owner: string) =>
      database.db
        .updateTable('webhooks')
        .set({ lease_owner: owner, lease_until: new Date(Date.now() + 600_000).toISOString() })
        .where('id', '=', id)
        .execute();
    const created = async (name: string) => {
      const reply = await s.call('POST', '/products', { body: { item_name: name } });
      assert.equal(reply.status, 201, reply.text);
    };

    test('a live holder keeps it; once its process is gone another instance takes it over at once', { skip }, async () => {
      const path = `/held-${target.dialect}`;
      const id = await subscribe(path);
      const holder: SessionLock | undefined = await holdSessionLock(s.databaseUrl, 'another-instance');
      try {
        assert.ok(holder?.held);
        await leaseTo(id, 'another-instance');
        await created('Held bolt');
        await sleep(1500);
        assert.equal(receiver.received.filter((r) => r.path === path).length, 0, 'nothing sent while the holder lives');
      } finally {
        await holder?.close();
      }
      const started = performance.now();
      await receiver.waitFor(path, 1, 5000);
      console.log(`# delivered ${(performance.now() - started).toFixed(0)} ms after the holder's lock was freed`);
    });

    test('a lease of an instance that holds no lock (it died) is taken over at once', { skip }, async () => {
      const path = `/orphaned-${target.dialect}`;
      const id = await subscribe(path);
      await leaseTo(id, '999999-dead');
      await created('Orphaned bolt');
      await receiver.waitFor(path, 1, 5000);
    });
  },
  { webhooks: { allowedNetworks: ['127.0.0.0/8', '::1'], ca: receiver.ca, pollMs: 200 } },
);

after(() => receiver.close());
