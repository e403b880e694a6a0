/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// A list page whose records the database writes as JSON itself (SQLite, PostgreSQL) answers each record as the
// single-record GET does (rows shaped in JS): same keys in the same order, same values, for every field type and
// for text that needs escaping.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { openDatabase } from '@app/database';
import { resourceNamed, writableFields } from '@app/store/testing';
import { sql } from 'kysely';
import { visibleFields } from '../src/model/declaration.ts';
import { migrateStore } from '../src/db/migrations.ts';
import { postgresRecordJson, storedRecordJson, STORED_JSON_TABLES } from '../src/db/postgres-json.ts';
import type { StoreSchema } from '../src/db/schema.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

const TRICKY_TEXT = 'quote " backslash \\ tab \t newline \n nul-free \u0001 é 😀 </script>';

/** A body with every writable field that refers to nothing set, in the field's type. */
function everyField(resourceName: string, i: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, field] of writableFields(resourceNamed(resourceName))) {
    if (field.references !== undefined) continue;
    if (field.enum !== undefined) body[name] = field.enum[i % field.enum.length];
    else if (field.type === 'string') body[name] = `${i} ${TRICKY_TEXT}`.slice(0, field.maxLength ?? 200);
    else if (field.type === 'integer') body[name] = i % 2 === 0 ? 7 : 0;
    else if (field.type === 'number') body[name] = [2.5, 3, 0.0001, 1234567.125][i % 4];
    else if (field.type === 'boolean') body[name] = i % 2 === 0;
    else if (field.type === 'flag') body[name] = i % 2;
    else if (field.type === 'datetime') body[name] = new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
    else body[name] = { list: [1, 'two', null], text: TRICKY_TEXT };
  }
  return body;
}

await describeOnEachDatabase('list records written by the database', (s, target) => {
  for (const resourceName of ['products', 'orders', 'customers', 'categories']) {
    test(`${resourceName}: a list answers each record as GET /${resourceName}/{id} does, also with fields=`, async () => {
      const ids: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        const made = await s.call('POST', `/${resourceName}`, { body: everyField(resourceName, i) });
        assert.equal(made.status, 201, made.text);
        ids.push(Number(made.json.id));
      }
      // One record with every optional field left null.
      const bare = await s.call('POST', `/${resourceName}`, {
        body: Object.fromEntries(
          Object.entries(everyField(resourceName, 0)).filter(([name]) =>
            writableFields(resourceNamed(resourceName)).some(([n, f]) => n === name && f.required === true),
          ),
        ),
      });
      assert.equal(bare.status, 201, bare.text);
      ids.push(Number(bare.json.id));
      const list = await s.call('GET', `/${resourceName}?id=gte:${ids[0]}&count=10`, { headers: { 'cache-control': 'no-cache' } });
      assert.equal(list.status, 200, list.text);
      const records = list.json[resourceName] as Record<string, unknown>[];
      assert.equal(records.length, ids.length);
      for (const [i, id] of ids.entries()) {
        const one = await s.call('GET', `/${resourceName}/${id}`);
        assert.deepEqual(Object.keys(records[i] ?? {}), Object.keys(one.json as object), 'same keys in the same order');
        assert.deepEqual(records[i], one.json);
      }
      const some = await s.call('GET', `/${resourceName}?id=gte:${ids[0]}&count=10&fields=id,created_at`, {
        headers: { 'cache-control': 'no-cache' },
      });
      assert.deepEqual(
        some.json[resourceName],
        records.map((record) => ({ id: record.id, created_at: record.created_at })),
      );
    });
  }

  // PostgreSQL keeps the JSON of the big tables' rows (0460_record_json): it must be the very text the live SQL writes.
  for (const resourceName of STORED_JSON_TABLES) {
    test(
      `${resourceName}: the JSON a row keeps is the text written live, after inserts, updates through the API and updates in SQL, and an outdated one is not answered`,
      { skip: target.dialect !== 'postgres' && 'products keep their JSON on PostgreSQL only (SQLite and MariaDB write it live)' },
      async () => {
        const resource = resourceNamed(resourceName);
        const stored = storedRecordJson(resource);
        assert.ok(stored !== undefined);
        const ids: number[] = [];
        for (let i = 0; i < 3; i += 1)
          ids.push(Number((await s.call('POST', `/${resourceName}`, { body: everyField(resourceName, i) })).json.id));
        const changed = await s.call('PUT', `/${resourceName}/${ids[1]}`, { body: everyField(resourceName, 7) });
        assert.equal(changed.status, 200, changed.text);
        const direct = await openDatabase<Record<string, Record<string, unknown>>>(s.databaseUrl);
        try {
          const table = sql.table(resource.table);
          await sql`update ${table} set updated_at = '2031-01-01T00:00:00.000Z' where id = ${ids[2]}`.execute(direct.db);
          // The live SQL: every field named, so not the kept column.
          const live = postgresRecordJson(
            resource,
            visibleFields(resource).map(([name]) => name),
          );
          assert.ok(live !== undefined);
          const rows = (
            await sql<{
              kept: string | null;
              version: string | null;
              hash: string | null;
              live: string;
            }>`select __json as kept, __json_version as version, __json_hash as hash, ${live} as live from ${table} where id in (${sql.join(ids)}) order by id`.execute(
              direct.db,
            )
          ).rows;
          assert.equal(rows.length, ids.length);
          for (const row of rows) {
            assert.equal(row.version, stored.version);
            assert.equal(row.kept, row.live);
            assert.equal(
              row.hash,
              createHash('sha256')
                .update(row.kept ?? '')
                .digest('base64'),
            );
          }
          assert.match(rows[2]?.kept ?? '', /"updated_at":"2031-01-01T00:00:00.000Z"/);
          // A row written under another declaration (its version differs) is answered as written live.
          const first = (await s.call('GET', `/${resourceName}/${ids[0]}`)).json as Record<string, unknown>;
          await sql`alter table ${table} disable trigger ${sql.id(`${resource.table}_record_json`)}`.execute(direct.db);
          await sql`update ${table} set __json = '{"id":0}', __json_version = 'older' where id = ${ids[0]}`.execute(direct.db);
          await sql`alter table ${table} enable trigger ${sql.id(`${resource.table}_record_json`)}`.execute(direct.db);
          const list = await s.call('GET', `/${resourceName}?id=eq:${ids[0]}`, { headers: { 'cache-control': 'no-cache' } });
          assert.deepEqual((list.json[resourceName] as unknown[])[0], first);
          // A page's ETag (made from the kept hashes): the same while nothing changes, another once a record does.
          const page = `/${resourceName}?id=gte:${ids[0]}&count=10`;
          const etagOf = async () => (await s.call('GET', page, { headers: { 'cache-control': 'no-cache' } })).headers.etag;
          const before = await etagOf();
          assert.match(String(before), /^"[\w-]+"$/);
          assert.equal(await etagOf(), before);
          await sql`update ${table} set updated_at = '2032-01-01T00:00:00.000Z' where id = ${ids[1]}`.execute(direct.db);
          assert.notEqual(await etagOf(), before);
        } finally {
          await direct.close();
        }
      },
    );
    test(
      `${resourceName}: a start brings a trigger left by another declaration up to this one (else writes would keep the old version, or fail on a dropped column)`,
      { skip: target.dialect !== 'postgres' && 'products keep their JSON on PostgreSQL only (SQLite and MariaDB write it live)' },
      async () => {
        const resource = resourceNamed(resourceName);
        const stored = storedRecordJson(resource);
        assert.ok(stored !== undefined);
        const direct = await openDatabase<StoreSchema>(s.databaseUrl);
        try {
          const fn = sql.id(`store_${resource.table}_record_json`);
          // As an older release left it: a trigger naming a column this declaration does not have.
          await sql`create or replace function ${fn}() returns trigger language plpgsql as $$ begin new.__json := new.no_such_column::text; new.__json_version := 'older'; return new; end $$`.execute(
            direct.db,
          );
          const broken = await s.call('POST', `/${resourceName}`, { body: everyField(resourceName, 1) });
          assert.equal(broken.status >= 500, true, 'the old trigger fails the write');
          await migrateStore(direct);
          const made = await s.call('POST', `/${resourceName}`, { body: everyField(resourceName, 2) });
          assert.equal(made.status, 201, made.text);
          const row = (
            await sql<{
              version: string | null;
            }>`select __json_version as version from ${sql.table(resource.table)} where id = ${Number(made.json.id)}`.execute(direct.db)
          ).rows[0];
          assert.equal(row?.version, stored.version);
        } finally {
          await direct.close();
        }
      },
    );
  }
});
