/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment -- replies are JSON checked by assertions */
// The event log (issue 37 item 2): GET /events lists the events webhooks carry, oldest first, behind opaque cursors,
// each to callers with the read scope of what it carries; a client that was down replays exactly what it missed;
// old events go after the retention.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest, openDatabase } from '@app/database';
import type { StoreSchema } from '../../src/db/schema.ts';
import { sql } from 'kysely';
import { writeQueueOf } from '../../src/db/group-commit.ts';
import { resourceNamed } from '../../src/model/registry.ts';
import { MIGRATION_PRODUCT, storeMigrations } from '../../src/db/migrations.ts';
import { eventCursors, loggedEvents, pruneEventLog, readEvents } from '../../src/webhooks/event-log.ts';
import { randomBytes } from 'node:crypto';
import { eventSequencerOf } from '../../src/webhooks/event-sequencer.ts';
import { resourceWriteEvents } from '../../src/webhooks/resource-events.ts';
import { issueTestToken } from '../support/test-token.ts';
import { describeOnEachDatabase } from '../support/each-database.ts';

interface Seen {
  type: string;
  record: number | null;
}

// No webhook subscription anywhere in this suite: the log is kept regardless.
await describeOnEachDatabase(
  'event log',
  (s, target) => {
    /** Every event after `cursor`, following `next` pages of `count`; checks Link against `next` on the way. */
    async function replay(
      cursor: string | undefined,
      query = '',
      count = 3,
      headers: Record<string, string> = {},
    ): Promise<{ seen: Seen[]; next: string }> {
      const seen: Seen[] = [];
      let at = cursor;
      for (let page = 0; page < 100; page++) {
        const reply = await s.call('GET', `/events?count=${count}${query}${at === undefined ? '' : `&after=${at}`}`, { headers });
        assert.equal(reply.status, 200, reply.text);
        const { events, next } = reply.json as {
          events: { id: string; event_type: string; record_id: number | null }[];
          next: string | null;
        };
        assert.ok(events.length <= count);
        if (next !== null) {
          assert.match(String(reply.headers.link), new RegExp(`^<https://[^>]*/api/v1/events\\?[^>]*after=${next}>; rel="next"$`));
        }
        for (const event of events) seen.push({ type: event.event_type, record: event.record_id });
        if (events.length === 0) return { seen, next: next ?? at ?? '' };
        assert.equal(next, events.at(-1)?.id, 'next is the last event listed');
        at = next;
      }
      assert.fail('the log never ended');
    }

    test('a client that was down replays exactly the events it missed, oldest first, and nothing twice', async () => {
      await s.call('POST', '/products', { body: { item_name: 'Before the outage' } });
      const caughtUp = await replay(undefined);
      assert.ok(
        caughtUp.seen.some((event) => event.type === 'ProductCreated'),
        JSON.stringify(caughtUp.seen),
      );
      // The client goes down; writes go on.
      const expected: Seen[] = [];
      for (let i = 0; i < 4; i++) {
        const product = await s.call('POST', '/products', { body: { item_name: `Missed ${i}` } });
        assert.equal(product.status, 201, product.text);
        expected.push({ type: 'ProductCreated', record: product.json.id });
      }
      const customer = await s.call('POST', '/customers', { body: { email: 'missed@example.com', first_name: 'Missed' } });
      assert.equal(customer.status, 201, customer.text);
      expected.push({ type: 'CustomerCreated', record: customer.json.id });
      const changed = await s.call('PUT', `/customers/${customer.json.id}`, { body: { email: 'changed@example.com' } });
      assert.equal(changed.status, 200, changed.text);
      expected.push({ type: 'CustomerUpdated', record: customer.json.id }, { type: 'CustomerEmailUpdated', record: customer.json.id });
      // A refused write sends nothing.
      assert.equal((await s.call('POST', '/products', { body: { no_such_field: 1 } })).status, 400);
      // Back up: it replays from its cursor, in pages smaller than what it missed.
      const back = await replay(caughtUp.next, '', 2);
      assert.deepEqual(back.seen, expected);
      // And from there on, nothing again until a new write.
      assert.deepEqual((await replay(back.next)).seen, []);
      const another = await s.call('POST', '/products', { body: { item_name: 'After' } });
      assert.deepEqual((await replay(back.next)).seen, [{ type: 'ProductCreated', record: another.json.id }]);
    });

    // PostgreSQL and MariaDB give ids at insert and commit in any order; SQLite holds one writer at a time.
    const concurrent = target.dialect === 'sqlite' ? 'SQLite has one writer at a time: no write commits behind a later one' : false;

    test(
      'an event whose write commits after a later write is still replayed: a reader never passes one still to come',
      { skip: concurrent },
      async () => {
        const database = await openDatabase<StoreSchema>(s.databaseUrl);
        try {
          const start = (await replay(undefined, '', 500)).next;
          // A slow write: its event takes its id first and commits last.
          let inserted!: () => void;
          let release!: () => void;
          const insertedNow = new Promise<void>((resolve) => (inserted = resolve));
          const held = new Promise<void>((resolve) => (release = resolve));
          const slow = database.db.transaction().execute(async (trx) => {
            await trx
              .insertInto('event_log')
              .values({
                event_type: 'ProductUpdated',
                resource: 'products',
                record_id: 950_001,
                body: '{}',
                created_at: new Date().toISOString(),
              })
              .execute();
            inserted();
            await held;
          });
          await insertedNow;
          const fast = await s.call('POST', '/products', { body: { item_name: 'Committed first' } });
          assert.equal(fast.status, 201, fast.text);
          const first = await replay(start, '', 50);
          assert.deepEqual(first.seen, [{ type: 'ProductCreated', record: fast.json.id }], 'the uncommitted event is not listed yet');
          release();
          await slow;
          // The client goes on from where it stood: the late one comes after.
          const second = await replay(first.next, '', 50);
          assert.deepEqual(second.seen, [{ type: 'ProductUpdated', record: 950_001 }]);
        } finally {
          await database.close();
        }
      },
    );

    test('a reader following the log while many clients write sees every event once', { skip: concurrent }, async () => {
      const start = (await replay(undefined, '', 500)).next;
      const created: number[] = [];
      let writing = true;
      const writers = Promise.all(
        Array.from({ length: 8 }, async (_, writer) => {
          for (let i = 0; i < 12; i++) {
            const product = await s.call('POST', '/products', { body: { item_name: `Writer ${writer} #${i}` } });
            assert.equal(product.status, 201, product.text);
            created.push(product.json.id);
          }
        }),
      ).finally(() => (writing = false));
      const walked: Seen[] = [];
      let cursor = start;
      while (writing) {
        const step = await replay(cursor, '&types=ProductCreated', 5);
        walked.push(...step.seen);
        cursor = step.next;
      }
      await writers;
      walked.push(...(await replay(cursor, '&types=ProductCreated', 50)).seen);
      assert.deepEqual(
        walked.map((event) => event.record).sort((a, b) => Number(a) - Number(b)),
        [...created].sort((a, b) => a - b),
      );
    });

    test('cursors made before the log was ordered by commit keep their place after the upgrade', async () => {
      const throwaway = await target.create();
      const database = await openDatabase<StoreSchema>(throwaway.url);
      try {
        assert.ok(storeMigrations['0450_event_sequence'] !== undefined);
        // The store as it was before that step: the steps after it came later still.
        const earlier = Object.fromEntries(Object.entries(storeMigrations).filter(([name]) => name < '0450_event_sequence'));
        await migrateToLatest(database, MIGRATION_PRODUCT, earlier);
        const event = (record: number) => ({
          event_type: 'ProductUpdated',
          resource: 'products',
          record_id: record,
          body: '{}',
          created_at: new Date().toISOString(),
        });
        for (const record of [1, 2, 3]) await database.db.insertInto('event_log').values(event(record)).execute();
        const [first] = await database.db.selectFrom('event_log').select('id').orderBy('id').limit(1).execute();
        // A client read the first event before the upgrade: its cursor carried that event's id.
        const cursor = Buffer.from(`ev1:${Number(first?.id)}`).toString('base64url');
        const cursors = eventCursors(randomBytes(32));
        await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
        await database.db.insertInto('event_log').values(event(4)).execute();
        await eventSequencerOf(database).settle();
        const { events } = await readEvents(database, cursors.parse(cursor), loggedEvents, 10, cursors);
        assert.deepEqual(
          events.map((e) => e.record_id),
          [2, 3, 4],
        );
      } finally {
        await database.close();
        await throwaway.drop();
      }
    });

    test('types narrows the listing to the named events', async () => {
      const all = await replay(undefined, '', 50);
      const customers = await replay(undefined, '&types=CustomerCreated,CustomerEmailUpdated', 50);
      assert.deepEqual(
        customers.seen,
        all.seen.filter((event) => event.type === 'CustomerCreated' || event.type === 'CustomerEmailUpdated'),
      );
      assert.ok(customers.seen.length >= 2);
      const unknown = await s.call('GET', '/events?types=ProductCreated,NoSuchEvent');
      assert.equal(unknown.status, 400);
      assert.match(unknown.json.details, /NoSuchEvent/);
      assert.equal((await s.call('GET', '/events?types=GetTax')).status, 400, 'reply events are not in the log');
      assert.equal((await s.call('GET', '/events?count=0')).status, 400);
      assert.equal((await s.call('GET', '/events?count=abc')).status, 400);
    });

    test('each event is listed only to callers with the read scope of what it carries, the rest left out', async () => {
      const storeId = s.store.firstStart?.storeId ?? 1;
      const catalog = await issueTestToken(s.store.app, storeId, 'read_catalog', 'Catalog reader');
      const people = await issueTestToken(s.store.app, storeId, 'read_people', 'People reader');
      const none = await issueTestToken(s.store.app, storeId, 'read_content', 'Content reader');
      const all = (await replay(undefined, '', 50)).seen;
      const asCatalog = await replay(undefined, '', 50, { 'x-ac-auth-token': catalog });
      assert.deepEqual(
        asCatalog.seen,
        all.filter((event) => event.type.startsWith('Product')),
      );
      const asPeople = await replay(undefined, '', 50, { 'x-ac-auth-token': people });
      assert.deepEqual(
        asPeople.seen,
        all.filter((event) => event.type.startsWith('Customer')),
      );
      assert.ok(asCatalog.seen.length > 0 && asPeople.seen.length > 0);
      // Asking for what it may not read is an empty list, not a refusal.
      const reply = await s.call('GET', '/events?types=CustomerCreated', { headers: { 'x-ac-auth-token': catalog } });
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.json.events, []);
      assert.deepEqual((await replay(undefined, '', 50, { 'x-ac-auth-token': none })).seen, []);
      assert.equal((await s.call('GET', '/events', { anonymous: true })).status, 401);
    });

    test('a cursor this server did not make is a 400 in the store error format', async () => {
      for (const bad of [
        'nope!',
        'MTIz',
        Buffer.from('ev1:-4').toString('base64url'),
        Buffer.from('ev1:1e3').toString('base64url'),
        'A'.repeat(60),
        Buffer.from('ev1:99999999999999999').toString('base64url'),
      ]) {
        const reply = await s.call('GET', `/events?after=${encodeURIComponent(bad)}`);
        assert.equal(reply.status, 400, `${bad}: ${reply.text}`);
        assert.deepEqual(Object.keys(reply.json).sort(), ['details', 'message', 'status_code']);
        assert.match(reply.json.details, /^after: /);
      }
    });

    test('a cursor the log never gave out is a 400, never a listing that skips events: made up, past the end, changed or respelled', async () => {
      for (const name of ['Cursor guard', 'Cursor guard 2']) await s.call('POST', '/products', { body: { item_name: name } });
      const given = String((await replay(undefined, '', 500)).next);
      const [payload = '', mac = ''] = given.split('.');
      const seq = Number(Buffer.from(payload, 'base64url').toString('utf8'));
      assert.ok(seq > 1, given);
      const legacy = (text: string) => Buffer.from(text).toString('base64url');
      const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
      // The same bytes spelled otherwise (the last character's unused low bits set), of a position within the log.
      const older = legacy('ev1:1');
      const respelled = `${older.slice(0, -1)}${String.fromCharCode(older.charCodeAt(older.length - 1) + 1)}`;
      assert.equal(Buffer.from(respelled, 'base64url').toString(), 'ev1:1');
      const refused = [
        legacy('ev1:999999999'),
        legacy(`ev1:${seq + 1}`),
        respelled,
        `${legacy(String(seq + 1))}.${mac}`,
        `${legacy('999999999')}.${mac}`,
        flip(given, 1),
        flip(given, given.length - 2),
        `${given}=`,
        `${given}!!`,
        given.slice(0, -1),
        `${payload}.`,
        eventCursors(randomBytes(32)).cursor(1),
      ];
      for (const bad of refused) {
        const reply = await s.call('GET', `/events?after=${encodeURIComponent(bad)}`);
        assert.equal(reply.status, 400, `${bad}: ${reply.text}`);
        assert.deepEqual(Object.keys(reply.json).sort(), ['details', 'message', 'status_code']);
        assert.match(reply.json.details, /^after: /);
        assert.equal(reply.headers.link, undefined);
      }
      // What it gave out works, and so do the cursors it gave out before they were sealed, within the log.
      const mine = await s.call('GET', `/events?after=${given}`);
      assert.equal(mine.status, 200, mine.text);
      assert.deepEqual(mine.json.events, []);
      assert.equal(mine.json.next, given, 'nothing newer: the same cursor again');
      const kept = await s.call('GET', `/events?after=${legacy(`ev1:${seq - 1}`)}`);
      assert.equal(kept.status, 200, kept.text);
      assert.equal((kept.json.events as { id: string }[]).at(-1)?.id, given);
    });

    test('an event is written in the transaction of its write: a write rolled back leaves none', async () => {
      const database = await openDatabase<StoreSchema>(s.databaseUrl);
      try {
        const events = resourceWriteEvents(database, resourceNamed('products'));
        assert.ok(events !== undefined);
        const logged = async (recordId: number) =>
          (await database.db.selectFrom('event_log').select('event_type').where('record_id', '=', recordId).execute()).map(
            (row) => row.event_type,
          );
        const failing = sql`select * from no_such_table`.compile(database.db);
        await assert.rejects(
          writeQueueOf(database).run(function* () {
            yield* events.created({ id: 900_001, item_name: 'Rolled back' });
            yield failing;
          }),
        );
        assert.deepEqual(await logged(900_001), [], 'the rolled-back write left no event');
        await writeQueueOf(database).run(function* () {
          yield* events.created({ id: 900_002, item_name: 'Committed' });
        });
        assert.deepEqual(await logged(900_002), ['ProductCreated'], 'the same steps committed leave one');
      } finally {
        await database.close();
      }
    });

    test('events older than the retention are removed, a batch at a time, newer ones kept', async () => {
      const database = await openDatabase<StoreSchema>(s.databaseUrl);
      try {
        const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
        const rows = Array.from({ length: 600 }, (_, i) => ({
          event_type: 'ProductUpdated',
          resource: 'products',
          record_id: i + 1,
          body: '{}',
          created_at: old,
        }));
        for (let i = 0; i < rows.length; i += 100)
          await database.db
            .insertInto('event_log')
            .values(rows.slice(i, i + 100))
            .execute();
        const count = async () =>
          Number(
            (
              await database.db
                .selectFrom('event_log')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        const before = await count();
        assert.equal(await pruneEventLog(database, 30), 500, 'one batch');
        assert.equal(await pruneEventLog(database, 30), 100);
        assert.equal(await pruneEventLog(database, 30), 0);
        assert.equal(await count(), before - 600, 'only the old ones went');
        assert.ok((await replay(undefined, '', 50)).seen.some((event) => event.type === 'ProductCreated'));
        // A shorter retention takes the rest: nothing written here is a day old.
        assert.equal(await pruneEventLog(database, 1), 0);
        assert.ok((await pruneEventLog(database, 1, Date.now() + 2 * 86_400_000)) > 0);
      } finally {
        await database.close();
      }
    });
  },
  { webhooks: { deliver: false } },
);
