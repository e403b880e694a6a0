// SQLite: the database writes records as JSON itself (sqlite-json.ts), and runs writes one at a time.
import { sql } from 'kysely';
import { anyTables, type DialectSql } from '../dialect-sql.ts';
import { jsonObjectSql } from '../sqlite-json.ts';

export const sqliteSql: DialectSql = {
  // SQLite runs RETURNING slower than a second lookup by id (~3 µs more per insert).
  returning: false,
  oneWriter: true,
  recordJson: (resource, fields) => jsonObjectSql(resource, fields),
  recordJsonHash: () => undefined,
  wholeRecordColumns: () => undefined,
  // No row locks: a write holds the whole database until it commits.
  lockForWrite: (query) => query,
  treeLock: () => undefined,
  insertRow: async (db, table, row) => Number((await anyTables(db).insertInto(table).values(row).executeTakeFirstOrThrow()).insertId),
  keptCounts: () => Promise.resolve(undefined),
  emptyTables: (db, tables) =>
    db.transaction().execute(async (trx) => {
      // Rows referring to each other go in any order; the checks run at the commit, when none is left.
      await sql`pragma defer_foreign_keys = on`.execute(trx);
      for (const table of tables) await trx.deleteFrom(table).execute();
      await sql`delete from sqlite_sequence where name in (${sql.join(tables)})`.execute(trx);
    }),
};
