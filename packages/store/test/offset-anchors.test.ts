/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// A deep `page=N` starts from anchors on PostgreSQL (records/offset-anchors.ts) and must answer exactly the rows a plain
// OFFSET does, whatever was deleted or added since the anchors were read.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { openDatabase } from '@app/database';
import { sql } from 'kysely';
import { dialectSqlOf } from '../src/db/dialects/of.ts';
import type { StoreDatabase } from '../src/db/schema.ts';
import { ANCHOR_STEP, ANCHORED_FROM, offsetAnchors, type AnchoredStart, type OffsetAnchors } from '../src/records/offset-anchors.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

const COUNT = 250;
const PAGE = Math.ceil(ANCHORED_FROM / COUNT) + 10;
const OFFSET = (PAGE - 1) * COUNT;

await describeOnEachDatabase('page=N from anchors', (s, target) => {
  const skip = target.dialect !== 'postgres' && 'anchors start pages on PostgreSQL only, where the row counts are kept';
  let database: StoreDatabase;
  before(async () => {
    if (skip !== false) return;
    database = await openDatabase(s.databaseUrl);
    const now = new Date().toISOString();
    await sql`insert into products (item_name, created_at, updated_at)
              select 'Anchored ' || g, ${now}, ${now} from generate_series(1, ${OFFSET + 3 * COUNT}) as g`.execute(database.db);
  });
  after(async () => {
    await database?.close();
  });

  const offsetIds = async (offset = OFFSET) =>
    (await database.db.selectFrom('products').select('id').orderBy('id').offset(offset).limit(COUNT).execute()).map((row) =>
      Number(row.id),
    );
  const listedIds = async () => {
    const reply = await s.call('GET', `/products?count=${COUNT}&page=${PAGE}`, { headers: { 'cache-control': 'no-cache' } });
    assert.equal(reply.status, 200, reply.text);
    return (reply.json.products as { id: number }[]).map((product) => product.id);
  };
  const anchoredStart = async (anchors: OffsetAnchors): Promise<AnchoredStart> => {
    for (let tries = 0; tries < 100; tries += 1) {
      const start = anchors.start(OFFSET);
      if (start !== undefined) return start;
      await delay(50);
    }
    throw new Error('the anchors were never read');
  };
  const middleId = async () => (await offsetIds(OFFSET / 2))[0] ?? 0;

  test('the anchors are read once and start a page where OFFSET would', { skip }, async () => {
    const anchors = offsetAnchors(database.db, dialectSqlOf(database), 'products', { readAgainAfterMs: 0 });
    assert.equal(anchors.start(ANCHORED_FROM - 1), undefined, 'shallow pages are read by plain offset');
    assert.equal(anchors.start(OFFSET), undefined, 'the first deep page is answered while the anchors are read');
    const start = await anchoredStart(anchors);
    const anchorPosition = Math.floor(OFFSET / ANCHOR_STEP) * ANCHOR_STEP;
    assert.equal(start.fromId, (await offsetIds(anchorPosition))[0]);
    assert.equal(start.skip, OFFSET - anchorPosition);
    assert.equal(await anchors.held(start), true);

    // Rows added after the last anchor extend the order: the anchors still hold.
    await s.call('POST', '/products', { body: { item_name: 'Added above' } });
    assert.equal(await anchors.held(start), true);

    // A row deleted below: they no longer hold, and are read again.
    await database.db
      .deleteFrom('products')
      .where('id', '=', await middleId())
      .execute();
    assert.equal(await anchors.held(start), false);
    const again = await anchoredStart(anchors);
    assert.notEqual(again.fromId, start.fromId, 'every anchor past the deleted row moved by one');
    assert.equal(again.fromId, (await offsetIds(anchorPosition))[0]);

    // A row put back below the last anchor under an id of its own: the count at or below it changed.
    const gap = Number(
      (
        await sql<{
          id: number;
        }>`select min(id) + 1 as id from products p where not exists (select 1 from products q where q.id = p.id + 1)`.execute(database.db)
      ).rows[0]?.id,
    );
    const now = new Date().toISOString();
    await sql`insert into products (id, item_name, created_at, updated_at) values (${gap}, 'Put back', ${now}, ${now})`.execute(
      database.db,
    );
    assert.equal(await anchors.held(again), false);
  });

  test('page=N answers the rows of OFFSET after deletions and additions below and above', { skip }, async () => {
    assert.deepEqual(await listedIds(), await offsetIds());
    await delay(200);
    assert.deepEqual(await listedIds(), await offsetIds(), 'from the anchors');
    await database.db
      .deleteFrom('products')
      .where('id', '=', await middleId())
      .execute();
    assert.deepEqual(await listedIds(), await offsetIds(), 'after a deletion below');
    await s.call('POST', '/products', { body: { item_name: 'Added above' } });
    await delay(200);
    assert.deepEqual(await listedIds(), await offsetIds(), 'after an addition above');
    const reply = await s.call('DELETE', `/products/${await middleId()}`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(await listedIds(), await offsetIds(), 'after a deletion through the API');
  });
});
