// Every table's id is a 32-bit serial (`@app/database`'s id column, INT on all three databases), so an id a request
// names in its path, query or body is a whole number from 1 to 2^31 - 1. Anything else names no record: routes
// answer their own 404 (or 400) for it, and it never reaches a query, where PostgreSQL and MariaDB would fail on it.

export const ID_RANGE = { minimum: 1, maximum: 2147483647 } as const;

/** The id a text names, or undefined when it cannot name a record (not digits, 0, past the column). */
export function parseRecordId(text: string | number | undefined | null): number | undefined {
  if (typeof text === 'number') return Number.isInteger(text) && text >= ID_RANGE.minimum && text <= ID_RANGE.maximum ? text : undefined;
  if (typeof text !== 'string' || !/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= ID_RANGE.minimum && id <= ID_RANGE.maximum ? id : undefined;
}

/** The JSON Schema of an id a body or query sends: past the column is a 400 before any query runs. */
export const idSchema = { type: 'integer', ...ID_RANGE } as const;
