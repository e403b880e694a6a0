// PostgreSQL: RETURNING saves a round trip; the database writes records as JSON itself (postgres-json.ts); row locks
// serialise tree changes.
import type { DialectSql } from '../dialect-sql.ts';
import { postgresRecordJson } from '../postgres-json.ts';

export const postgresSql: DialectSql = {
  returning: true,
  recordJson: (resource, fields) => postgresRecordJson(resource, fields),
  lockForWrite: (query) => query.forUpdate(),
  // Each tree change holds the table's first row until its transaction commits, so two changes that are
  // harmless alone cannot close a loop together.
  treeLock: (db, table) => db.selectFrom(table).select('id').orderBy('id').limit(1).forUpdate().compile(),
  // PostgreSQL has no insert id, only RETURNING.
  insertRow: async (db, table, row) => Number((await db.insertInto(table).values(row).returning('id').executeTakeFirstOrThrow()).id),
};
