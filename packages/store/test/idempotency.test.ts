/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// Idempotency-Key on POST and PUT: a retried request answers as the first did and writes nothing more.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { describeOnEachDatabase } from './support/each-database.ts';

// The store's clock, moved ahead by a test of expiry and back (one suite runs at a time).
const clock = { offset: 0 };

await describeOnEachDatabase(
  'Idempotency-Key',
  (s, target) => {
    const count = async (name: string) =>
      Number(
        (await s.call('GET', `/manufacturers?name=${encodeURIComponent(name)}`, { headers: { 'cache-control': 'no-cache' } })).json
          .total_count,
      );
    const post = (key: string, body: unknown) => s.call('POST', '/manufacturers', { body, headers: { 'idempotency-key': key } });

    test('the same key and body again returns the first answer and writes nothing more', async () => {
      const key = randomUUID();
      const first = await post(key, { name: 'Acme once' });
      assert.equal(first.status, 201);
      const again = await post(key, { name: 'Acme once' });
      assert.equal(again.status, 201);
      assert.equal(again.text, first.text);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(await count('Acme once'), 1);
      // Without a key, a POST writes each time.
      await s.call('POST', '/manufacturers', { body: { name: 'Acme once' } });
      assert.equal(await count('Acme once'), 2);
    });

    test('the same key with another body is 422, and nothing is written', async () => {
      const key = randomUUID();
      assert.equal((await post(key, { name: 'Bolt works' })).status, 201);
      const other = await post(key, { name: 'Nut works' });
      assert.equal(other.status, 422);
      assert.equal(other.json.status_code, 422);
      assert.match(other.json.details, /different request/);
      assert.equal(await count('Nut works'), 0);
      // Another path with the same key is another request too.
      const elsewhere = await s.call('POST', '/product_statuses', { body: { name: 'Bolt works' }, headers: { 'idempotency-key': key } });
      assert.equal(elsewhere.status, 422);
    });

    test('PUT: a repeated update answers the first result even after the record changed', async () => {
      const made = await s.call('POST', '/manufacturers', { body: { name: 'Put target' } });
      const key = randomUUID();
      const first = await s.call('PUT', `/manufacturers/${made.json.id}`, { body: { sort_order: 5 }, headers: { 'idempotency-key': key } });
      assert.equal(first.status, 200);
      await s.call('PUT', `/manufacturers/${made.json.id}`, { body: { sort_order: 9 } });
      const again = await s.call('PUT', `/manufacturers/${made.json.id}`, { body: { sort_order: 5 }, headers: { 'idempotency-key': key } });
      assert.equal(again.text, first.text);
      const now = await s.call('GET', `/manufacturers/${made.json.id}`, { headers: { 'cache-control': 'no-cache' } });
      assert.equal(now.json.sort_order, 9);
    });

    test('a client error is the first answer too; the key is kept for that request', async () => {
      const key = randomUUID();
      const first = await post(key, { name: 'Ghost', sort_order: 'first' });
      assert.equal(first.status, 400);
      const again = await post(key, { name: 'Ghost', sort_order: 'first' });
      assert.equal(again.status, 400);
      assert.equal(again.headers['idempotent-replayed'], 'true');
    });

    // As when the database is lost between the answer and keeping it (a failover): a failure made here by triggers.
    test(
      'an answer goes out as it is when keeping it under its key fails',
      {
        skip: target.dialect !== 'sqlite' && 'the failure is made with SQLite triggers (postgres-failover.test.ts makes it on PostgreSQL)',
      },
      async () => {
        const file = s.databaseUrl.replace(/^sqlite:/, '');
        const sqlite = new DatabaseSync(file);
        try {
          for (const event of ['UPDATE', 'DELETE'])
            sqlite.exec(
              `CREATE TRIGGER refuse_keys_${event.toLowerCase()} BEFORE ${event} ON idempotency_keys BEGIN SELECT RAISE(ABORT, 'secret detail of the database'); END`,
            );
          const answer = await post(randomUUID(), { name: 'Ghost', sort_order: 'first' });
          assert.equal(answer.status, 400, answer.text);
          assert.equal(answer.json.status_code, 400);
          assert.doesNotMatch(answer.text, /secret detail/);
        } finally {
          sqlite.exec('DROP TRIGGER IF EXISTS refuse_keys_update; DROP TRIGGER IF EXISTS refuse_keys_delete');
          sqlite.close();
        }
      },
    );

    test('concurrent requests with the same key write once and get the same answer', async () => {
      for (let round = 0; round < 3; round++) {
        const key = randomUUID();
        const name = `Racer ${round}`;
        const answers = await Promise.all(Array.from({ length: 6 }, () => post(key, { name })));
        assert.deepEqual(
          answers.map((a) => a.status),
          Array(6).fill(201),
        );
        assert.equal(new Set(answers.map((a) => a.text)).size, 1);
        assert.equal(await count(name), 1);
      }
    });

    test('keys of one caller do not touch another caller', async () => {
      const key = randomUUID();
      assert.equal((await post(key, { name: 'Caller one' })).status, 201);
      const otherToken = await (
        await import('./support/test-token.ts')
      ).issueTestToken(s.store.app, s.store.firstStart?.storeId ?? 1, 'system', 'Second caller');
      const other = await s.call('POST', '/manufacturers', {
        body: { name: 'Caller two' },
        headers: { 'idempotency-key': key, 'x-ac-auth-token': otherToken },
      });
      assert.equal(other.status, 201);
      assert.equal(await count('Caller two'), 1);
    });

    test('after 24 hours a key is free again', async () => {
      const key = randomUUID();
      assert.equal((await post(key, { name: 'Yesterday' })).status, 201);
      clock.offset = 24 * 3600 * 1000 + 1000;
      try {
        const later = await post(key, { name: 'Today' });
        assert.equal(later.status, 201);
        assert.equal(await count('Today'), 1);
      } finally {
        clock.offset = 0;
      }
    });

    test('a malformed key is 400', async () => {
      const bad = await post('has space', { name: 'Never' });
      assert.equal(bad.status, 400);
      assert.match(bad.json.details, /Idempotency-Key/);
      assert.equal((await post('x'.repeat(256), { name: 'Never' })).status, 400);
      assert.equal(await count('Never'), 0);
    });
  },
  { clock: () => Date.now() + clock.offset },
);
