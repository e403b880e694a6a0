// PostgreSQL: RETURNING saves a round trip; the database writes records as JSON itself (db/postgres-json.ts) and keeps
// the big tables' row counts and deletions (0441_record_counts, 0490_record_deletions); row locks serialise tree changes.
import { sql, type Kysely } from 'kysely';
import { columnsOf } from '../../model/declaration.ts';
import { anyTables, type DialectSql } from '../dialect-sql.ts';
import { postgresRecordJson, postgresRecordJsonHash, STORED_JSON_TABLES } from '../postgres-json.ts';
import type { StoreSchema } from '../schema.ts';

export const postgresSql: DialectSql = {
  returning: true,
  oneWriter: false,
  recordJson: (resource, fields) => postgresRecordJson(resource, fields),
  recordJsonHash: (resource) => postgresRecordJsonHash(resource),
  wholeRecordColumns: (resource) => (STORED_JSON_TABLES.includes(resource.table) ? columnsOf(resource) : undefined),
  lockForWrite: (query) => query.forUpdate(),
  // Each tree change holds the table's first row until its transaction commits, so two changes that are
  // harmless alone cannot close a loop together.
  treeLock: (db, table) => db.selectFrom(table).select('id').orderBy('id').limit(1).forUpdate().compile(),
  // PostgreSQL has no insert id, only RETURNING.
  insertRow: async (db, table, row) =>
    Number((await anyTables(db).insertInto(table).values(row).returning('id').executeTakeFirstOrThrow()).id),
  keptCounts: async (db, table) => {
    const { rows } = await sql<{
      total: string;
      deleted: string;
      parts: string;
    }>`select coalesce(sum(delta), 0) as total, coalesce(sum(deleted), 0) as deleted, count(*) as parts from record_counts where table_name = ${table}`.execute(
      db,
    );
    const parts = Number(rows[0]?.parts ?? 0);
    if (parts === 0) return undefined;
    if (parts > FOLD_AT) await fold(db, table);
    return { rows: Number(rows[0]?.total), deleted: Number(rows[0]?.deleted) };
  },
  emptyTables: async (db, tables) => {
    await sql`truncate table ${sql.join(tables.map((t) => sql.table(t)))} restart identity cascade`.execute(db);
  },
};

// The triggers of 0441_record_counts keep one counter row per table and backend; past this many, a reader folds
// them into slot 0, skipping those a transaction still holds.
const FOLD_AT = 64;

async function fold(db: Kysely<StoreSchema>, table: string): Promise<void> {
  await sql`
    with gone as (
      delete from record_counts
      where table_name = ${table} and slot <> 0
        and slot in (select slot from record_counts where table_name = ${table} and slot <> 0 for update skip locked)
      returning delta, deleted
    )
    insert into record_counts (table_name, slot, delta, deleted) select ${table}, 0, coalesce(sum(delta), 0), coalesce(sum(deleted), 0) from gone
    on conflict (table_name, slot) do update
      set delta = record_counts.delta + excluded.delta, deleted = record_counts.deleted + excluded.deleted`.execute(db);
}
