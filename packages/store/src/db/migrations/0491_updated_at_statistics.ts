import type { ProductMigration } from '@app/database';
import { sql } from 'kysely';
import { keepUpdatedAtStatistics } from '../resource-tables.ts';

// PostgreSQL estimates a range of ISO time strings from its histogram of them, and with the default 100 buckets it
// took a day of a million products (1,440 rows) for 233: fewer than a page of 250, so it read the whole day and
// sorted it (16 ms, 974 pages read) rather than walking the (updated_at, id) index for the page (2.4 ms, 133).
// With 1,000 buckets it estimates 1,540 and walks the index. Tables made later get the same (resource-tables.ts).
export const updatedAtStatistics: ProductMigration = {
  up: async (db, dialect) => {
    if (dialect !== 'postgres') return;
    const { rows } = await sql<{ table_name: string }>`
      select table_name from information_schema.columns
      where table_schema = current_schema() and column_name = 'updated_at'`.execute(db);
    for (const { table_name: table } of rows) {
      await keepUpdatedAtStatistics(db, table);
      await sql`analyze ${sql.table(table)} (updated_at)`.execute(db);
    }
  },
};
