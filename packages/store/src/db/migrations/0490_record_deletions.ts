import type { ProductMigration } from '@app/database';
import { sql } from 'kysely';

// The count triggers of 0441 also keep how many rows each table has lost, a sum that only grows (a TRUNCATE adds one
// too): offset pages start from anchors read once (records/offset-anchors.ts), and those hold only while no row
// below them was deleted. PostgreSQL only, as 0441.
export const recordDeletions: ProductMigration = {
  up: async (db, dialect) => {
    if (dialect !== 'postgres') return;
    await sql`alter table record_counts add column deleted bigint not null default 0`.execute(db);
    await sql`
      create or replace function store_count_rows() returns trigger language plpgsql as $$
      declare
        changed bigint;
        lost bigint := 0;
      begin
        if tg_op = 'TRUNCATE' then
          select coalesce(sum(deleted), 0) + 1 into lost from record_counts where table_name = tg_table_name;
          delete from record_counts where table_name = tg_table_name;
          insert into record_counts (table_name, slot, delta, deleted) values (tg_table_name, 0, 0, lost);
          return null;
        end if;
        if tg_op = 'INSERT' then
          select count(*) into changed from new_rows;
        else
          select count(*) into lost from old_rows;
          changed := -lost;
        end if;
        if changed <> 0 then
          insert into record_counts (table_name, slot, delta, deleted) values (tg_table_name, pg_backend_pid(), changed, lost)
          on conflict (table_name, slot) do update
            set delta = record_counts.delta + excluded.delta, deleted = record_counts.deleted + excluded.deleted;
        end if;
        return null;
      end
      $$`.execute(db);
  },
};
