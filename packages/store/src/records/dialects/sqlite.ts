// SQLite: the database writes records as JSON itself (sqlite-json.ts), and runs writes one at a time.
import type { DialectSql } from '../dialect-sql.ts';
import { jsonObjectSql } from '../sqlite-json.ts';

export const sqliteSql: DialectSql = {
  // SQLite runs RETURNING slower than a second lookup by id (~3 µs more per insert).
  returning: false,
  recordJson: (resource, fields) => jsonObjectSql(resource, fields),
  recordJsonHash: () => undefined,
  // No row locks: a write holds the whole database until it commits.
  lockForWrite: (query) => query,
  treeLock: () => undefined,
  insertRow: async (db, table, row) => Number((await db.insertInto(table).values(row).executeTakeFirstOrThrow()).insertId),
  keptCount: () => Promise.resolve(undefined),
};
