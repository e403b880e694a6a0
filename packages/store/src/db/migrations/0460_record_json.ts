import type { ProductMigration } from '@app/database';
import { sql, type Kysely } from 'kysely';
import { resources } from '../../model/registry.ts';
import { STORED_JSON, STORED_JSON_HASH, STORED_JSON_TABLES, STORED_JSON_VERSION, storedRecordJson } from '../postgres-json.ts';

// PostgreSQL only (db/postgres-json.ts): products keep each row's record JSON, written by a trigger from
// the table's declaration as it is now. A later change of the declaration changes its version: rows written before
// are then written live when read (as every row was before this step), until their next write or a migration that
// calls writeRecordJsonTriggers again and rewrites them. SQLite and MariaDB write every page live; nothing here runs there.
export const recordJson: ProductMigration = {
  up: async (db, dialect) => {
    if (dialect !== 'postgres') return;
    // lz4 where the server has it: half the time of pglz to write a product's text (32 against 60 µs with its JSON,
    // measured on 100,000 products), as fast to read; pglz's text is smaller (2.0 against 2.7 KB).
    const { rows } = await sql<{ lz4: boolean }>`select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db);
    const compression = rows[0]?.lz4 === true ? sql` compression lz4` : sql``;
    for (const table of STORED_JSON_TABLES) {
      await sql`alter table ${sql.table(table)} add column ${sql.id(STORED_JSON)} text${compression}, add column ${sql.id(STORED_JSON_VERSION)} varchar(32), add column ${sql.id(STORED_JSON_HASH)} varchar(64)`.execute(db);
    }
    await writeRecordJsonTriggers(db);
  },
};

/** (Re)writes each table's trigger from its declaration, then the JSON of every row that is not of that version. */
export async function writeRecordJsonTriggers(db: Kysely<unknown>): Promise<void> {
  for (const table of STORED_JSON_TABLES) {
    const declaration = resources.find((resource) => resource.name === table);
    const stored = declaration === undefined ? undefined : storedRecordJson(declaration);
    const trigger = `${table}_record_json`;
    if (stored === undefined) {
      await sql`drop trigger if exists ${sql.id(trigger)} on ${sql.table(table)}`.execute(db);
      continue;
    }
    const column = sql.id(STORED_JSON);
    const version = sql.id(STORED_JSON_VERSION);
    await sql`
      create or replace function ${sql.id(`store_${trigger}`)}() returns trigger language plpgsql as $$
      begin
        new.${column} := ${sql.raw(stored.ofNew)};
        new.${version} := ${sql.lit(stored.version)};
        new.${sql.id(STORED_JSON_HASH)} := encode(sha256(convert_to(new.${column}, 'UTF8')), 'base64');
        return new;
      end
      $$`.execute(db);
    await sql`drop trigger if exists ${sql.id(trigger)} on ${sql.table(table)}`.execute(db);
    await sql`create trigger ${sql.id(trigger)} before insert or update on ${sql.table(table)} for each row execute function ${sql.id(`store_${trigger}`)}()`.execute(db);
    // The trigger writes each row's JSON; the update changes nothing else.
    await sql`update ${sql.table(table)} set ${version} = null where ${version} is distinct from ${sql.lit(stored.version)}`.execute(db);
  }
}
