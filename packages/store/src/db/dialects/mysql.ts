// MariaDB / MySQL: no RETURNING in Kysely's dialect, so rows are read back by id; row locks serialise tree changes.
import { sql } from 'kysely';
import { anyTables, type DialectSql } from '../dialect-sql.ts';

export const mysqlSql: DialectSql = {
  returning: false,
  oneWriter: false,
  recordJson: () => undefined,
  recordJsonHash: () => undefined,
  wholeRecordColumns: () => undefined,
  lockForWrite: (query) => query.forUpdate(),
  // Each tree change holds the table's first row until its transaction commits, so two changes that are
  // harmless alone cannot close a loop together.
  treeLock: (db, table) => db.selectFrom(table).select('id').orderBy('id').limit(1).forUpdate().compile(),
  // The insertId is this connection's own.
  insertRow: async (db, table, row) => Number((await anyTables(db).insertInto(table).values(row).executeTakeFirstOrThrow()).insertId),
  keptCounts: () => Promise.resolve(undefined),
  emptyTables: (db, tables) =>
    // One connection: the switch holds for it only.
    db.connection().execute(async (connection) => {
      await sql`set foreign_key_checks = 0`.execute(connection);
      try {
        for (const table of tables) await sql`truncate table ${sql.table(table)}`.execute(connection);
      } finally {
        await sql`set foreign_key_checks = 1`.execute(connection);
      }
    }),
};
