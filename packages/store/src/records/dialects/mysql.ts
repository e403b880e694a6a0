// MariaDB / MySQL: no RETURNING in Kysely's dialect, so rows are read back by id; row locks serialise tree changes.
import type { DialectSql } from '../dialect-sql.ts';

export const mysqlSql: DialectSql = {
  returning: false,
  recordJson: () => undefined,
  recordJsonHash: () => undefined,
  lockForWrite: (query) => query.forUpdate(),
  // Each tree change holds the table's first row until its transaction commits, so two changes that are
  // harmless alone cannot close a loop together.
  treeLock: (db, table) => db.selectFrom(table).select('id').orderBy('id').limit(1).forUpdate().compile(),
  insertRow: async (db, table, row) => Number((await db.insertInto(table).values(row).executeTakeFirstOrThrow()).insertId),
  keptCount: () => Promise.resolve(undefined),
};
