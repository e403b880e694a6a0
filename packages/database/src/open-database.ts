import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql, type Dialect } from 'kysely';
import { openNodeSqlite, type SyncSqlite } from './node-sqlite-adapter.ts';
import { DatabaseUnreachableError } from './unreachable-error.ts';
import { MEMORY, parseDatabaseUrl, redactUrl, type DatabaseTarget, type DialectName } from './url.ts';

export interface Database<DB> {
  readonly db: Kysely<DB>;
  readonly dialect: DialectName;
  /** The URL with any password masked. */
  readonly description: string;
  /** On SQLite only: the same connection, for statements that must run back to back. */
  readonly sqlite?: SyncSqlite;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Connections kept by PostgreSQL and MariaDB pools. */
  poolSize?: number;
  /** How long to wait for a server before giving up, in milliseconds. */
  connectTimeoutMs?: number;
  /** Told of a pooled connection the server broke (the pool replaces it). Default: a warning on stderr. */
  onConnectionError?: (error: Error) => void;
}

/** Opens the database a URL names and proves it answers, or throws a message naming which and why. */
export async function openDatabase<DB>(url: string, options: OpenOptions = {}): Promise<Database<DB>> {
  const target = parseDatabaseUrl(url);
  const description = describe(target, url);
  let db: Kysely<DB>;
  let sqlite: SyncSqlite | undefined;
  try {
    if (target.dialect === 'sqlite') {
      if (target.path !== MEMORY) createPrivately(target.path);
      const connection = openNodeSqlite(target.path);
      sqlite = connection.sync;
      db = new Kysely<DB>({ dialect: new SqliteDialect({ database: connection }) });
    } else {
      db = new Kysely<DB>({ dialect: await serverDialect(target, options) });
    }
  } catch (cause) {
    throw new DatabaseUnreachableError(description, cause);
  }
  try {
    await sql`select 1`.execute(db);
  } catch (cause) {
    await db.destroy().catch(() => undefined);
    throw new DatabaseUnreachableError(description, cause);
  }
  return { db, dialect: target.dialect, description, ...(sqlite === undefined ? {} : { sqlite }), close: () => db.destroy() };
}

/**
 * A new database file is readable by its owner only (SQLite gives its -wal and -shm files the same mode);
 * an existing one keeps the mode it has.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function describe(target: DatabaseTarget, url: string): string {
  switch (target.dialect) {
    case 'sqlite':
      return target.path === MEMORY ? 'SQLite (in memory)' : `SQLite file ${target.path}`;
    case 'postgres':
      return `PostgreSQL at ${redactUrl(url)}`;
    case 'mysql':
      return `MariaDB/MySQL at ${redactUrl(url)}`;
  }
}

function warnIdleError(error: Error): void {
  console.warn(`database: a pooled connection broke and will be replaced (${error.message})`);
}

async function serverDialect(target: Exclude<DatabaseTarget, { dialect: 'sqlite' }>, options: OpenOptions): Promise<Dialect> {
  const poolSize = options.poolSize ?? 10;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  switch (target.dialect) {
    case 'postgres': {
      const pg = await import('pg');
      const types = pg.default.types;
      // int8 (counts, ids) and numeric as JS numbers, so rows look the same on every database.
      const parsers: Record<number, (value: string) => unknown> = {
        [types.builtins.INT8]: (value) => Number(value),
        [types.builtins.NUMERIC]: (value) => Number(value),
      };
      const pool = new pg.default.Pool({
        connectionString: target.url.toString(),
        max: poolSize,
        connectionTimeoutMillis: connectTimeoutMs,
        types: {
          getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
            parsers[oid] ?? types.getTypeParser(oid, format)) as typeof types.getTypeParser,
        },
      });
      // A connection the server drops (restart, failover, a forced DROP DATABASE) emits 'error',
      // idle in the pool or checked out; with no listener that ends the process. The query in
      // flight still fails, and the pool opens a new connection on next use.
      const onError = options.onConnectionError ?? warnIdleError;
      pool.on('error', onError);
      pool.on('connect', (client) => client.on('error', onError));
      return new PostgresDialect({ pool });
    }
    case 'mysql': {
      const mysql = await import('mysql2');
      const pool = mysql.createPool({
        uri: target.url.toString(),
        connectionLimit: poolSize,
        connectTimeout: connectTimeoutMs,
        decimalNumbers: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
        timezone: 'Z',
        dateStrings: true,
      });
      return new MysqlDialect({ pool });
    }
  }
}
