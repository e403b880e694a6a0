import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql, type Dialect } from 'kysely';
import { openNodeSqlite } from './node-sqlite-adapter.ts';
import { DatabaseUnreachableError } from './unreachable-error.ts';
import { MEMORY, parseDatabaseUrl, redactUrl, type DatabaseTarget, type DialectName } from './url.ts';

export interface Database<DB> {
  readonly db: Kysely<DB>;
  readonly dialect: DialectName;
  /** The URL with any password masked. */
  readonly description: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Connections kept by PostgreSQL and MariaDB pools. */
  poolSize?: number;
  /** How long to wait for a server before giving up, in milliseconds. */
  connectTimeoutMs?: number;
  /** Told of a pooled connection that broke while idle (the pool replaces it). Default: a warning on stderr. */
  onIdleError?: (error: Error) => void;
}

/** Opens the database a URL names and proves it answers, or throws a message naming which and why. */
export async function openDatabase<DB>(url: string, options: OpenOptions = {}): Promise<Database<DB>> {
  const target = parseDatabaseUrl(url);
  const description = describe(target, url);
  let db: Kysely<DB>;
  try {
    db = new Kysely<DB>({ dialect: await createDialect(target, options) });
  } catch (cause) {
    throw new DatabaseUnreachableError(description, cause);
  }
  try {
    await sql`select 1`.execute(db);
  } catch (cause) {
    await db.destroy().catch(() => undefined);
    throw new DatabaseUnreachableError(description, cause);
  }
  return { db, dialect: target.dialect, description, close: () => db.destroy() };
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
  console.warn(`database: an idle connection broke and will be replaced (${error.message})`);
}

async function createDialect(target: DatabaseTarget, options: OpenOptions): Promise<Dialect> {
  const poolSize = options.poolSize ?? 10;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  switch (target.dialect) {
    case 'sqlite': {
      if (target.path !== MEMORY) mkdirSync(dirname(target.path), { recursive: true });
      return new SqliteDialect({ database: openNodeSqlite(target.path) });
    }
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
        types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => parsers[oid] ?? types.getTypeParser(oid, format)) as typeof types.getTypeParser },
      });
      // Without a listener, a server restart that kills an idle connection crashes the process.
      pool.on('error', options.onIdleError ?? warnIdleError);
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
