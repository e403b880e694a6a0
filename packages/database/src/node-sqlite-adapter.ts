// Kysely's SqliteDialect expects a better-sqlite3-shaped object; node:sqlite is close but not equal.
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import type { CompiledQuery, QueryResult, SqliteDatabase, SqliteStatement } from 'kysely';

export interface NodeSqliteOptions {
  /** Milliseconds a writer waits for another connection's lock before failing. */
  busyTimeoutMs?: number;
}

/**
 * Statements run at once on the connection Kysely uses, for a caller that must run several with nothing
 * in between (group commit). Kysely's own SQLite transactions span awaits, so check `inTransaction` first.
 */
export interface SyncSqlite {
  execute(query: Pick<CompiledQuery, 'sql' | 'parameters'>): QueryResult<Record<string, unknown>>;
  readonly inTransaction: boolean;
}

export function openNodeSqlite(path: string, options: NodeSqliteOptions = {}): SqliteDatabase & { sync: SyncSqlite } {
  const db = new DatabaseSync(path);
  // WAL lets the RPC server read while an agent process writes; memory databases cannot use it.
  if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA synchronous = NORMAL');
  // Kysely prepares on every query; a hot query (a poll, a progress read) should not pay that each time.
  const cache = new Map<string, SqliteStatement>();
  const prepare = (sql: string): SqliteStatement => {
    // A schema change through this connection can alter what a cached `select *` returns.
    if (SCHEMA_CHANGE.test(sql)) cache.clear();
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = wrapStatement(db.prepare(sql));
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(sql, statement);
    }
    return statement;
  };
  return {
    close: () => {
      cache.clear();
      db.close();
    },
    prepare,
    sync: {
      // The same results Kysely's SQLite driver makes of a statement.
      execute: ({ sql, parameters }) => {
        const statement = prepare(sql);
        if (statement.reader) return { rows: statement.all(parameters) as Record<string, unknown>[] };
        const { changes, lastInsertRowid } = statement.run(parameters);
        return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
      },
      get inTransaction() {
        return db.isTransaction;
      },
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;
const SCHEMA_CHANGE = /^\s*(alter|drop|create)\s/i;

function wrapStatement(statement: StatementSync): SqliteStatement {
  const firstNames = statement.columns().map((column) => column.name);
  if (firstNames.length === 0) {
    return {
      reader: false,
      all: (parameters) => statement.all(...toSqlite(parameters)),
      run: (parameters) => statement.run(...toSqlite(parameters)),
      iterate: (parameters) => statement.iterate(...toSqlite(parameters)) as IterableIterator<unknown>,
    };
  }
  // Rows as arrays, made into objects here: node:sqlite builds row objects far slower (a 100-row list read took ~40% longer).
  statement.setReturnArrays(true);
  let names = firstNames;
  const toObject = (row: unknown): Record<string, unknown> => {
    const values = row as unknown[];
    // Another connection's schema change re-prepares the statement underneath; `select *` may then have other columns.
    if (values.length !== names.length) names = statement.columns().map((column) => column.name);
    const object: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i += 1) object[names[i]] = values[i];
    return object;
  };
  return {
    reader: true,
    all: (parameters) => statement.all(...toSqlite(parameters)).map(toObject),
    run: (parameters) => statement.run(...toSqlite(parameters)),
    iterate: function* (parameters) {
      for (const values of statement.iterate(...toSqlite(parameters))) yield toObject(values);
    },
  };
}

function toSqlite(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value): SQLInputValue => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return value;
    if (value instanceof Uint8Array) return value;
    return JSON.stringify(value);
  });
}
