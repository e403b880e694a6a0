import type { ProductMigration } from '@app/database';
import { sql } from 'kysely';
import { STORED_JSON, STORED_JSON_HASH, STORED_JSON_TABLES, STORED_JSON_VERSION } from '../postgres-json.ts';
import { writeRecordJsonTriggers } from '../record-json-triggers.ts';

// PostgreSQL only (db/postgres-json.ts): products keep each row's record JSON, written by a trigger from
// the table's declaration as it is now. A later change of the declaration changes its version: rows written before
// are then written live when read (as every row was before this step), until their next write; each start brings the
// trigger up to the declaration (record-json-triggers.ts). SQLite and MariaDB write every page live; nothing here runs there.
export const recordJson: ProductMigration = {
  up: async (db, dialect) => {
    if (dialect !== 'postgres') return;
    // lz4 where the server has it: half the time of pglz to write a product's text (32 against 60 µs with its JSON,
    // measured on 100,000 products), as fast to read; pglz's text is smaller (2.0 against 2.7 KB).
    const { rows } = await sql<{
      lz4: boolean;
    }>`select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db);
    const compression = rows[0]?.lz4 === true ? sql` compression lz4` : sql``;
    for (const table of STORED_JSON_TABLES) {
      await sql`alter table ${sql.table(table)} add column ${sql.id(STORED_JSON)} text${compression}, add column ${sql.id(STORED_JSON_VERSION)} varchar(32), add column ${sql.id(STORED_JSON_HASH)} varchar(64)`.execute(
        db,
      );
    }
    await writeRecordJsonTriggers(db, { rewriteRows: true });
  },
};
