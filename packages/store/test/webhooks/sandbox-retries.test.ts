// In a sandbox store webhook retries follow the movable clock: with the real schedule (10 s doubling to 1 h,
// given up after 24 h), moving the clock an hour brings the next attempt at once, and a day gives the event up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { testDatabaseTargets } from '@app/database/testing';
import type { StoreDatabase, StoreSchema } from '../../src/db/schema.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { startReceiver, type Receiver } from './receiver.ts';

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

for (const target of await testDatabaseTargets()) {
  describe(`webhook retries on the sandbox clock on ${target.name}`, { skip: target.skip }, () => {
    let receiver: Receiver;
    let s: StoreUnderTest;
    let database: StoreDatabase;
    before(async () => {
      receiver = await startReceiver();
      s = await startStoreUnderTest(target, {
        sandbox: true,
        webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, pollMs: 100, timeoutMs: 1500 },
      });
      database = await openDatabase<StoreSchema>(s.databaseUrl);
    });
    after(async () => {
      await database?.close();
      await s?.close();
      await receiver?.close();
    });

    test('an hour on, the next attempt comes at once; a day on, the event is given up; the next event goes', async () => {
      receiver.answer('/down', { status: 500 });
      const made = await s.call('POST', '/webhooks', { body: { event_type: 'CustomerCreated', url: `${receiver.origin}/down` } });
      assert.equal(made.status, 201, made.text);
      const rows = () =>
        database.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('subscription_id', '=', (made.json as { id: number }).id)
          .orderBy('id')
          .execute();
      const advance = async (by: string) => assert.equal((await s.call('POST', '/sandbox/clock', { body: { advance: by } })).status, 200);

      await s.call('POST', '/customers', { body: { email: 'first@example.test' } });
      await eventually(async () => Number((await rows())[0]?.attempts) === 1, 'the first attempt');
      // The next attempt is due 5-10 s later on the real schedule; nothing more happens in real time meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(Number((await rows())[0]?.attempts), 1);
      await advance('1h');
      const second = await eventually(async () => Number((await rows())[0]?.attempts) === 2, 'the attempt an hour on');
      assert.ok(second < 1000, `${second} ms after the clock moved`);
      await advance('1d');
      const gaveUp = await eventually(async () => (await rows())[0]?.state === 'failed', 'giving up a day on');
      assert.ok(gaveUp < 1000, `${gaveUp} ms after the clock moved`);
      assert.equal((await rows())[0]?.last_error, 'HTTP 500');

      receiver.answer('/down', { status: 200 });
      await s.call('POST', '/customers', { body: { email: 'second@example.test' } });
      await eventually(async () => (await rows())[1]?.state === 'delivered', 'the next event');
    });
  });
}
