// On SQLite the database writes each record's JSON itself (json_object), so a list page never becomes JS objects
// that are then serialised: for pages of wide records (a product has 143 fields) that was most of a read's cost.
// The text says what rowShaper + JSON.stringify would (same keys in the same order, same values): booleans as
// true/false, flags as 0/1, JSON fields inlined (null when the stored text is not JSON).
import { sql, type RawBuilder } from 'kysely';
import { visibleFields, type FieldDeclaration, type ResourceDeclaration } from '../model/declaration.ts';

// SQLite takes at most 1000 function arguments (SQLITE_MAX_FUNCTION_ARG): two per field.
const MAX_FIELDS = 500;

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

function valueSql(name: string, field: FieldDeclaration): string {
  const column = identifier(name);
  switch (field.type) {
    case 'boolean':
      return `case when ${column} is null then null when ${column} then json('true') else json('false') end`;
    case 'flag':
      return `case when ${column} is null then null when ${column} = 1 then 1 else 0 end`;
    case 'json':
      return `case when json_valid(${column}) then json(${column}) end`;
    // Numbers keep their stored form: decimal columns hold whole values as integers, so 3 is answered as 3.
    case 'integer':
    case 'number':
    case 'string':
    case 'datetime':
      return column;
  }
}

/**
 * `json_object(...)` of a resource's visible fields (only those of `fields=`, when given), or undefined when the
 * resource has too many fields for one call or keeps some encrypted (those answers are rewritten per caller).
 */
export function jsonObjectText(resource: ResourceDeclaration, fields: readonly string[] | undefined): string | undefined {
  const chosen = visibleFields(resource).filter(([name]) => fields === undefined || fields.includes(name));
  if (chosen.length > MAX_FIELDS || Object.values(resource.fields).some((field) => field.encrypted === true)) return undefined;
  return `json_object(${chosen.map(([name, field]) => `${literal(name)}, ${valueSql(name, field)}`).join(', ')})`;
}

/** jsonObjectText as a Kysely expression. */
export function jsonObjectSql(resource: ResourceDeclaration, fields: readonly string[] | undefined): RawBuilder<string> | undefined {
  const text = jsonObjectText(resource, fields);
  return text === undefined ? undefined : sql.raw<string>(text);
}
