// The triggers that keep products' record JSON (postgres-json.ts) are generated from the declarations. Code that
// declares a field anew, or a migration that drops a column, leaves the trigger of the old declaration behind: it
// would keep writing rows under the old version (answered live, slowly) or fail every write naming a column gone.
// So every start that migrates also brings each trigger up to its declaration; rows keep their text until written.
import { sql, type Kysely } from 'kysely';
import { resources } from '../model/registry.ts';
import { STORED_JSON, STORED_JSON_HASH, STORED_JSON_TABLES, STORED_JSON_VERSION, storedRecordJson } from './postgres-json.ts';

const functionName = (table: string) => `store_${table}_record_json`;

/** How `table` keeps its rows' JSON under the running declarations; undefined where it keeps none. */
function storedFor(table: string) {
  const declaration = resources.find((resource) => resource.name === table);
  return declaration === undefined ? undefined : storedRecordJson(declaration);
}

/** (Re)writes each table's trigger from its declaration; `rewriteRows`: then the JSON of every row of another version. */
export async function writeRecordJsonTriggers<DB>(db: Kysely<DB>, options: { rewriteRows: boolean }): Promise<void> {
  for (const table of STORED_JSON_TABLES) {
    const stored = storedFor(table);
    const trigger = `${table}_record_json`;
    if (stored === undefined) {
      await sql`drop trigger if exists ${sql.id(trigger)} on ${sql.table(table)}`.execute(db);
      continue;
    }
    const column = sql.id(STORED_JSON);
    const version = sql.id(STORED_JSON_VERSION);
    await sql`
      create or replace function ${sql.id(functionName(table))}() returns trigger language plpgsql as $$
      begin
        new.${column} := ${sql.raw(stored.ofNew)};
        new.${version} := ${sql.lit(stored.version)};
        new.${sql.id(STORED_JSON_HASH)} := encode(sha256(convert_to(new.${column}, 'UTF8')), 'base64');
        return new;
      end
      $$`.execute(db);
    await sql`drop trigger if exists ${sql.id(trigger)} on ${sql.table(table)}`.execute(db);
    await sql`create trigger ${sql.id(trigger)} before insert or update on ${sql.table(table)} for each row execute function ${sql.id(functionName(table))}()`.execute(
      db,
    );
    // The trigger writes each row's JSON; the update changes nothing else.
    if (options.rewriteRows)
      await sql`update ${sql.table(table)} set ${version} = null where ${version} is distinct from ${sql.lit(stored.version)}`.execute(db);
  }
}

/** Rewrites the triggers (not the rows) where one was made from another declaration than the running code's. */
export async function refreshRecordJsonTriggers<DB>(db: Kysely<DB>, dialect: string): Promise<void> {
  // Part of migrating, like 0460_record_json: only PostgreSQL keeps rows' JSON by trigger.
  if (dialect !== 'postgres') return;
  for (const table of STORED_JSON_TABLES) {
    const stored = storedFor(table);
    const { rows } = await sql<{ source: string }>`select prosrc as source from pg_proc where proname = ${functionName(table)}`.execute(db);
    // No function: 0460 has not run (it makes them), or the table keeps no JSON and never had one.
    if (rows.length === 0 && stored === undefined) continue;
    if (rows.length > 0 && stored !== undefined && rows.every((row) => row.source.includes(`'${stored.version}'`))) continue;
    await writeRecordJsonTriggers(db, { rewriteRows: false });
    return;
  }
}
