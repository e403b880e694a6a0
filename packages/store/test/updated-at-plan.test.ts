/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// An incremental sync's page (a day of a million products by updated_at) walks the (updated_at, id) index for its 250
// rows on PostgreSQL. With the default statistics PostgreSQL took the day for fewer rows than a page and read and
// sorted all of it: 7 times the pages, and every row's stored JSON fetched for nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openDatabase } from '@app/database';
import { sql } from 'kysely';
import type { StoreDatabase } from '../src/db/schema.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

const ROWS = 1_000_000;
const FIRST = Date.parse('2024-01-01T00:00:00.000Z');
const iso = (minute: number) => new Date(FIRST + minute * 60_000).toISOString();

await describeOnEachDatabase('a day of updated_at', (s, target) => {
  const skip = target.dialect !== 'postgres' && 'a PostgreSQL plan';
  let database: StoreDatabase;
  before(async () => {
    if (skip !== false) return;
    database = await openDatabase(s.databaseUrl);
    // One minute apart, in an order unrelated to the ids; without the record triggers, which a plan does not need.
    await database.db.connection().execute(async (connection) => {
      await sql`set session_replication_role = replica`.execute(connection);
      // Rows as wide in the table as the million-product bench's (411 bytes), which weighs in the plan's costs.
      await sql`insert into products (item_name, meta_description, created_at, updated_at)
                select 'Synced ' || g, repeat(md5(g::text), 11), ${iso(0)},
                       to_char((${iso(0)}::timestamptz + ((g::int8 * 7919) % ${ROWS}) * interval '1 minute') at time zone 'UTC',
                               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                from generate_series(1, ${ROWS}) as g`.execute(connection);
      await sql`set session_replication_role = origin`.execute(connection);
    });
    await sql`analyze products`.execute(database.db);
  });
  after(async () => {
    await database?.close();
  });

  test('a page of one day is read in index order, not the whole day sorted', { skip }, async () => {
    const from = 400_000;
    const [gte, lt] = [iso(from), iso(from + 24 * 60)];
    const plan = await sql<{ 'QUERY PLAN': string }>`explain select * from products
      where updated_at >= ${gte} and updated_at < ${lt} order by updated_at, id limit 251`.execute(database.db);
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    console.log(`# ${text.replaceAll('\n', '\n# ')}`);
    assert.match(text, /Index Scan using products_updated_at/, text);
    assert.doesNotMatch(text, /Sort/, text);
    const reply = await s.call('GET', `/products?updated_at=gte:${gte}+AND+lt:${lt}&sort=updated_at&count=250&fields=id,updated_at`);
    assert.equal(reply.status, 200, reply.text);
    const times = (reply.json.products as { updated_at: string }[]).map((product) => product.updated_at);
    assert.equal(times.length, 250);
    assert.deepEqual(times, [...times].sort());
    assert.equal(times[0], gte);
  });
});
