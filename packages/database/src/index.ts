export { openDatabase, type Database, type OpenOptions } from './open-database.ts';
export type { SyncSqlite } from './node-sqlite-adapter.ts';
export { migrateToLatest, MigrationError, type ProductMigration } from './migrate.ts';
export { longTextType, withIdColumn } from './columns.ts';
export { parseDatabaseUrl, redactUrl, DatabaseUrlError, type DialectName, type DatabaseTarget } from './url.ts';
export { DatabaseUnreachableError } from './unreachable-error.ts';
export { holdSessionLock, type SessionLock } from './session-lock.ts';
