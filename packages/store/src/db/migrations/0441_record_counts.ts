import type { ProductMigration } from '@app/database';
import { sql } from 'kysely';

// PostgreSQL counts a million rows in 70-200 ms (an index-only scan), and the first page of a whole-table list
// answers total_count. Triggers keep each big table's exact row count instead, in the writes' own transactions:
// one row per (table, backend), so two connections never wait on one counter, and a rolled back write counts
// nothing. Readers sum a table's rows (db/dialects/postgres.ts), folding them into slot 0 now and then.
// SQLite counts its b-tree pages fast enough, and nothing here runs on it or on MariaDB.
const counted = ['products', 'orders', 'order_items', 'customers'] as const;

export const recordCounts: ProductMigration = {
  up: async (db, dialect) => {
    if (dialect !== 'postgres') return;
    await db.schema
      .createTable('record_counts')
      .addColumn('table_name', 'varchar(64)', (c) => c.notNull())
      .addColumn('slot', 'integer', (c) => c.notNull())
      .addColumn('delta', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('record_counts_pkey', ['table_name', 'slot'])
      .execute();
    await sql`
      create or replace function store_count_rows() returns trigger language plpgsql as $$
      declare
        changed bigint;
      begin
        if tg_op = 'TRUNCATE' then
          delete from record_counts where table_name = tg_table_name;
          insert into record_counts (table_name, slot, delta) values (tg_table_name, 0, 0);
          return null;
        end if;
        if tg_op = 'INSERT' then
          select count(*) into changed from new_rows;
        else
          select -count(*) into changed from old_rows;
        end if;
        if changed <> 0 then
          insert into record_counts (table_name, slot, delta) values (tg_table_name, pg_backend_pid(), changed)
          on conflict (table_name, slot) do update set delta = record_counts.delta + excluded.delta;
        end if;
        return null;
      end
      $$`.execute(db);
    for (const table of counted) {
      // No write may land between the first count and the triggers (the migration's transaction holds the lock).
      await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(db);
      await sql`create trigger ${sql.id(`${table}_count_insert`)} after insert on ${sql.table(table)} referencing new table as new_rows for each statement execute function store_count_rows()`.execute(
        db,
      );
      await sql`create trigger ${sql.id(`${table}_count_delete`)} after delete on ${sql.table(table)} referencing old table as old_rows for each statement execute function store_count_rows()`.execute(
        db,
      );
      await sql`create trigger ${sql.id(`${table}_count_truncate`)} after truncate on ${sql.table(table)} for each statement execute function store_count_rows()`.execute(
        db,
      );
      await sql`insert into record_counts (table_name, slot, delta) select ${table}, 0, count(*) from ${sql.table(table)}`.execute(db);
    }
  },
};
