// A record between its two forms: the API's (JSON values, 0/1 flags, ISO dates) and the columns' (per database).
import { textOf, type Row } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { perResource, visibleFields, writableFields, type FieldType, type ResourceDeclaration } from '../model/declaration.ts';

export const encryptedFieldsOf: (resource: ResourceDeclaration) => readonly string[] = perResource((resource) =>
  Object.entries(resource.fields).flatMap(([name, field]) => (field.encrypted === true ? [name] : [])),
);

const same = (value: unknown) => value;
export const fromColumn: Record<FieldType, (value: unknown) => unknown> = {
  string: same,
  datetime: same,
  integer: Number,
  number: Number,
  boolean: Boolean,
  // The platform answers these as 0 or 1.
  flag: (value) => (value === true || Number(value) === 1 ? 1 : 0),
  json: (value) => {
    try {
      return JSON.parse(String(value)) as unknown;
    } catch {
      return null;
    }
  },
};

/**
 * A date-time in ISO 8601 UTC. The schema's date-time format lets through what no Date holds (a leap second)
 * and offsets that carry a time past year 9999.
 */
function isoTime(name: string, value: unknown): string {
  const time = new Date(textOf(value));
  const text = Number.isNaN(time.getTime()) ? '' : time.toISOString();
  if (text.length !== 24) throw new ApiError(400, `body/${name}: "${textOf(value)}" is not a date-time from year 0000 to 9999 in UTC`);
  return text;
}

const writableByName = perResource((resource) => new Map(writableFields(resource).map(([name, field], index) => [name, { field, index }])));

/** API record → column values: only writable fields, each in its column's form; unknown fields are left out. */
export function columnValues(resource: ResourceDeclaration, body: Readonly<Row>): Row {
  const out: Row = {};
  const writable = writableByName(resource);
  // A body names a few of a resource's fields (a product has over 140); they are taken in declaration order,
  // so the first bad one reported is the same whatever order the body lists them in.
  const named = Object.keys(body).filter((name) => writable.has(name));
  if (named.length > 1) named.sort((a, b) => (writable.get(a)?.index ?? 0) - (writable.get(b)?.index ?? 0));
  for (const name of named) {
    const field = writable.get(name)?.field;
    if (field === undefined) continue;
    const value = body[name];
    if (value === null || value === undefined) out[name] = null;
    // The platform's ids start at 1; clients send 0 for "none".
    else if (field.references !== undefined && value === 0) out[name] = null;
    else if (field.type === 'json') out[name] = JSON.stringify(value);
    else if (field.type === 'flag') out[name] = value === true || value === 1;
    else if (field.type === 'datetime') out[name] = isoTime(name, value);
    else if (field.type === 'string') out[name] = textOf(value);
    else out[name] = value;
  }
  return out;
}

/** Database row → API record: booleans and numbers the same on every database. */
export function rowShaper(resource: ResourceDeclaration): (row: Row) => Row {
  // One converter per field, chosen once: this runs for every row of every list.
  const fields = visibleFields(resource).map(([name, field]) => ({ name, convert: fromColumn[field.type] }));
  return (row) => {
    const out: Row = {};
    for (const { name, convert } of fields) {
      const value = row[name];
      if (value === undefined) {
        if (name in row) out[name] = null;
        continue;
      }
      out[name] = value === null ? null : convert(value);
    }
    return out;
  };
}
