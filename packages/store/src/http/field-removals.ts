// Leaving removed fields out of an answer: a single record's own keys, or the records of a list envelope
// (`{ total_count, ..., <resource>: [...] }`). Answers come as objects or as JSON text the database wrote.

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Drops `fields` from the records of `answer` in place; true when one was there. */
function dropFrom(answer: Json, list: string, fields: readonly string[]): boolean {
  const rows = answer[list];
  const records = Array.isArray(rows) && typeof answer.total_count === 'number' ? rows.filter(isRecord) : [answer];
  let dropped = false;
  for (const record of records)
    for (const field of fields)
      if (field in record) {
        delete record[field];
        dropped = true;
      }
  return dropped;
}

/**
 * The answer without `fields`. An object is changed in place; text is parsed and written again only when it held one
 * (so a cached body already without them costs a parse, not a copy). Anything else (empty, not JSON) is left as it is.
 */
export function withoutFields(payload: unknown, list: string, fields: readonly string[]): { payload: unknown; changed: boolean } {
  if (isRecord(payload) && !Buffer.isBuffer(payload)) return { payload, changed: dropFrom(payload, list, fields) };
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text === undefined || !text.startsWith('{')) return { payload, changed: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { payload, changed: false };
  }
  if (!isRecord(parsed) || !dropFrom(parsed, list, fields)) return { payload, changed: false };
  return { payload: JSON.stringify(parsed), changed: true };
}
