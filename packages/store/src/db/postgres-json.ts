// On PostgreSQL, as on SQLite (sqlite-json.ts), the database writes each record's JSON itself, so a page of 1,000
// wide records (a product has 143 fields) is never parsed into JS objects, shaped and serialised again: at a million
// products that was most of a list page's time. The text means what rowShaper + JSON.stringify would (same keys in
// the same order, same values): booleans as true/false, flags as 0/1, decimals without trailing zeros.
import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { visibleFields, type FieldDeclaration, type ResourceDeclaration } from '../model/declaration.ts';

// Longer names would be cut to PostgreSQL's identifier length (NAMEDATALEN - 1) as row_to_json's keys.
const MAX_NAME = 63;

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

function valueSql(column: string, field: FieldDeclaration): string {
  switch (field.type) {
    case 'flag':
      return `case when ${column} is null then null when ${column} then 1 else 0 end`;
    // decimal(14, 4) answers 2.5000; the API answers 2.5, as Number() makes it.
    case 'number':
      return `trim_scale(${column})`;
    case 'boolean':
    case 'integer':
    case 'string':
    case 'datetime':
    case 'json':
      return column;
  }
}

/** The SQL text of postgresRecordJson, its columns read from `source` (a table, or `new` in a trigger). */
function recordJsonSql(resource: ResourceDeclaration, fields: readonly string[] | undefined, source: string): string | undefined {
  const chosen = visibleFields(resource).filter(([name]) => fields === undefined || fields.includes(name));
  const unsupported = (name: string, field: FieldDeclaration) =>
    field.encrypted === true || field.type === 'json' || name.length > MAX_NAME;
  if (
    Object.entries(resource.fields).some(
      ([name, field]) => field.encrypted === true || (chosen.some(([c]) => c === name) && unsupported(name, field)),
    )
  )
    return undefined;
  const columns = chosen.map(([name, field]) => `${valueSql(`${source}.${identifier(name)}`, field)} as ${identifier(name)}`);
  // A row subquery names each value by its key (json_build_object takes at most 100 arguments: 50 fields).
  return `(select row_to_json(r) from (select ${columns.join(', ')}) r)::text`;
}

/**
 * `row_to_json` of a resource's visible fields (only those of `fields=`, when given) of `table`'s current row, as
 * text, or undefined where the JS path must answer: encrypted fields (rewritten per caller), JSON fields (their
 * stored text is answered as null when it is not JSON, which PostgreSQL 15 cannot test without failing the query),
 * or a field name too long to be a key. All fields of a table that keeps its rows' JSON (storedRecordJson) come
 * from that column where it was written by this same SQL, else are written now.
 */
export function postgresRecordJson(resource: ResourceDeclaration, fields: readonly string[] | undefined): RawBuilder<string> | undefined {
  const table = identifier(resource.table);
  const live = recordJsonSql(resource, fields, table);
  if (live === undefined) return undefined;
  const stored = fields === undefined ? storedRecordJson(resource) : undefined;
  if (stored === undefined) return sql.raw<string>(live);
  return sql.raw<string>(keptOr(table, stored, STORED_JSON, live));
}

/** A kept column of `table`'s row where the row was written under this declaration's version, else `otherwise`. */
function keptOr(table: string, stored: StoredRecordJson, column: string, otherwise: string): string {
  return `case when ${table}.${identifier(STORED_JSON_VERSION)} = '${stored.version}' then ${table}.${identifier(column)} else ${otherwise} end`;
}

// Writing 1,000 products' JSON (143 fields each) took PostgreSQL 18-25 ms of a list page's time; reading it kept by
// each row (written by a trigger on every insert and update, 0460_record_json) takes 9-13 ms. Orders were measured
// too: 9 ms live against 6 ms kept, for a heap 5 times larger (their 1.4 KB of JSON stays in the row), so they are
// written live. Customers have encrypted fields: their pages are shaped in JS.
export const STORED_JSON_TABLES: readonly string[] = ['products'];
export const STORED_JSON = '__json';
/** The hash of the SQL that wrote the row's JSON: a row written under another declaration is written anew when read. */
export const STORED_JSON_VERSION = '__json_version';
/** SHA-256 of the kept text (base64), so a page's ETag hashes 1,000 of these rather than 3.5 MB of JSON. */
export const STORED_JSON_HASH = '__json_hash';

/** The kept JSON's hash where the row's JSON is kept under this declaration, else null; undefined where nothing is kept. */
export function postgresRecordJsonHash(resource: ResourceDeclaration): RawBuilder<string | null> | undefined {
  const stored = storedRecordJson(resource);
  if (stored === undefined) return undefined;
  const table = identifier(resource.table);
  return sql.raw<string | null>(keptOr(table, stored, STORED_JSON_HASH, 'null'));
}

export interface StoredRecordJson {
  readonly version: string;
  /** The JSON of the trigger's `new` row. */
  readonly ofNew: string;
}

const storedByResource = new WeakMap<ResourceDeclaration, StoredRecordJson | null>();

/** How a table keeps its rows' JSON for this declaration, if it does. */
export function storedRecordJson(resource: ResourceDeclaration): StoredRecordJson | undefined {
  let stored = storedByResource.get(resource);
  if (stored === undefined) {
    const ofNew = STORED_JSON_TABLES.includes(resource.table) ? recordJsonSql(resource, undefined, 'new') : undefined;
    // Declarations that share a table and answer the same fields the same way write the same SQL, so the same version.
    stored =
      ofNew === undefined ? null : { version: createHash('sha256').update(`record json 1\n${ofNew}`).digest('hex').slice(0, 16), ofNew };
    storedByResource.set(resource, stored);
  }
  return stored ?? undefined;
}
