// On PostgreSQL, as on SQLite (sqlite-json.ts), the database writes each record's JSON itself, so a page of 1,000
// wide records (a product has 143 fields) is never parsed into JS objects, shaped and serialised again: at a million
// products that was most of a list page's time. The text means what rowShaper + JSON.stringify would (same keys in
// the same order, same values): booleans as true/false, flags as 0/1, decimals without trailing zeros.
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

/**
 * `row_to_json` of a resource's visible fields (only those of `fields=`, when given) of `table`'s current row, as
 * text, or undefined where the JS path must answer: encrypted fields (rewritten per caller), JSON fields (their
 * stored text is answered as null when it is not JSON, which PostgreSQL 15 cannot test without failing the query),
 * or a field name too long to be a key.
 */
export function postgresRecordJson(resource: ResourceDeclaration, fields: readonly string[] | undefined): RawBuilder<string> | undefined {
  const chosen = visibleFields(resource).filter(([name]) => fields === undefined || fields.includes(name));
  const unsupported = (name: string, field: FieldDeclaration) => field.encrypted === true || field.type === 'json' || name.length > MAX_NAME;
  if (Object.entries(resource.fields).some(([name, field]) => field.encrypted === true || (chosen.some(([c]) => c === name) && unsupported(name, field)))) return undefined;
  const table = identifier(resource.table);
  const columns = chosen.map(([name, field]) => `${valueSql(`${table}.${identifier(name)}`, field)} as ${identifier(name)}`);
  // A row subquery names each value by its key (json_build_object takes at most 100 arguments: 50 fields).
  return sql.raw<string>(`(select row_to_json(r) from (select ${columns.join(', ')}) r)::text`);
}
