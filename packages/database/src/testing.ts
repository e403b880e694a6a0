// Throwaway databases for test suites: SQLite always, PostgreSQL and MariaDB when their servers answer.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialectName } from './url.ts';

export interface ThrowawayDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface TestDatabaseTarget {
  name: string;
  dialect: DialectName;
  /** False when usable; otherwise the reason, for node:test's `skip`. */
  skip: string | false;
  create(): Promise<ThrowawayDatabase>;
}

const POSTGRES_ADMIN = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MYSQL_ADMIN = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const PREFIX = 'zz_test_';
const STALE_AFTER_S = 2 * 3600;

let targets: Promise<TestDatabaseTarget[]> | undefined;

/**
 * The databases a suite should run against. With REQUIRE_ALL_DATABASES=1 (set by CI) a server that
 * does not answer is an error, so a missing server can never turn into a quiet skip there.
 */
export function testDatabaseTargets(): Promise<TestDatabaseTarget[]> {
  const chosen = chosenDialects();
  const target = (dialect: DialectName, make: () => Promise<TestDatabaseTarget>): Promise<TestDatabaseTarget> =>
    chosen === undefined || chosen.has(dialect) ? make() : Promise.resolve(leftOut(dialect));
  targets ??= Promise.all([
    target('sqlite', sqliteTarget),
    target('postgres', () => probe('postgres', postgresAdmin)),
    target('mysql', () => probe('mysql', mysqlAdmin)),
  ]);
  return targets;
}

const labels: Record<DialectName, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MariaDB' };

// The names people give the databases, beside the dialects' own (mysql is how the MariaDB dialect is named).
const aliases: Record<string, DialectName> = {
  sqlite: 'sqlite',
  postgres: 'postgres',
  postgresql: 'postgres',
  mysql: 'mysql',
  mariadb: 'mysql',
};

/** TEST_DATABASES=sqlite (or a comma list of sqlite, postgres, mariadb): a quick local loop on fewer databases. */
function chosenDialects(): Set<DialectName> | undefined {
  const given = process.env.TEST_DATABASES?.trim();
  if (!given) return undefined;
  const words = given.split(',').map((word) => word.trim().toLowerCase());
  const unknown = words.filter((word) => !Object.hasOwn(aliases, word));
  if (unknown.length > 0) throw new Error(`TEST_DATABASES names ${unknown.join(', ')}; it takes sqlite, postgres and mariadb`);
  const chosen = new Set(words.map((word) => aliases[word]));
  if (process.env.REQUIRE_ALL_DATABASES === '1' && chosen.size < 3)
    throw new Error('TEST_DATABASES leaves databases out, and REQUIRE_ALL_DATABASES=1');
  return chosen;
}

function leftOut(dialect: DialectName): TestDatabaseTarget {
  const reason = `${labels[dialect]} left out by TEST_DATABASES=${process.env.TEST_DATABASES ?? ''}`;
  return { name: labels[dialect], dialect, skip: reason, create: () => Promise.reject(new Error(reason)) };
}

function sqliteTarget(): Promise<TestDatabaseTarget> {
  return Promise.resolve({
    name: 'SQLite',
    dialect: 'sqlite',
    skip: false,
    create: () => {
      const dir = mkdtempSync(join(tmpdir(), 'sqlite-test-'));
      return Promise.resolve({
        url: `sqlite:${join(dir, 'test.sqlite')}`,
        drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
      });
    },
  });
}

interface Admin {
  name: string;
  url: string;
  run(statement: string): Promise<unknown[]>;
  close(): Promise<void>;
}

async function probe(dialect: 'postgres' | 'mysql', connect: () => Promise<Admin>): Promise<TestDatabaseTarget> {
  const label = labels[dialect];
  try {
    const admin = await connect();
    await dropStale(admin, dialect);
    await admin.close();
  } catch (error) {
    const reason = `${label} not reachable (${error instanceof Error ? error.message : String(error)})`;
    if (process.env.REQUIRE_ALL_DATABASES === '1') throw new Error(`${reason}, and REQUIRE_ALL_DATABASES=1`);
    return { name: label, dialect, skip: reason, create: () => Promise.reject(new Error(reason)) };
  }
  return {
    name: label,
    dialect,
    skip: false,
    create: async () => {
      const name = `${PREFIX}${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
      const admin = await connect();
      await admin.run(`CREATE DATABASE ${name}`);
      await admin.close();
      const url = new URL(admin.url);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        drop: async () => {
          const again = await connect();
          await again.run(dialect === 'postgres' ? `DROP DATABASE IF EXISTS ${name} WITH (FORCE)` : `DROP DATABASE IF EXISTS ${name}`);
          await again.close();
        },
      };
    },
  };
}

// Databases left by a run that was killed before it could drop them.
async function dropStale(admin: Admin, dialect: 'postgres' | 'mysql'): Promise<void> {
  const rows = (await admin.run(
    dialect === 'postgres' ? `SELECT datname AS name FROM pg_database WHERE datname LIKE '${PREFIX}%'` : `SHOW DATABASES LIKE '${PREFIX}%'`,
  )) as Record<string, string>[];
  const now = Date.now() / 1000;
  for (const row of rows) {
    const name = Object.values(row)[0] ?? '';
    const created = Number(/^zz_test_(\d+)_/.exec(name)?.[1]);
    if (Number.isFinite(created) && now - created > STALE_AFTER_S) {
      await admin.run(dialect === 'postgres' ? `DROP DATABASE IF EXISTS ${name} WITH (FORCE)` : `DROP DATABASE IF EXISTS ${name}`);
    }
  }
}

async function postgresAdmin(): Promise<Admin> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: POSTGRES_ADMIN, connectionTimeoutMillis: 3000 });
  await client.connect();
  return {
    name: 'PostgreSQL',
    url: POSTGRES_ADMIN,
    run: async (statement) => (await client.query(statement)).rows as unknown[],
    close: () => client.end(),
  };
}

async function mysqlAdmin(): Promise<Admin> {
  const mysql = await import('mysql2/promise');
  const connection = await mysql.createConnection({ uri: MYSQL_ADMIN, connectTimeout: 3000 });
  return {
    name: 'MariaDB',
    url: MYSQL_ADMIN,
    run: async (statement) => (await connection.query(statement))[0] as unknown[],
    close: () => connection.end(),
  };
}

export { freePort } from './free-port.ts';
export {
  postgresBinDir,
  postgresIds,
  privatePostgresUnavailableReason,
  startPrivatePostgres,
  type PrivatePostgres,
} from './private-postgres.ts';
