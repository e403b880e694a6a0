// A named lock that lives exactly as long as its holder's connection: the server frees it the moment the connection
// ends, so a process killed (SIGKILL, a dead machine) lets go at once, where a lease written with an expiry time is
// held until that time. PostgreSQL's session advisory locks and MariaDB's GET_LOCK; SQLite has none.
import { createHash } from 'node:crypto';
import { parseDatabaseUrl } from './url.ts';

export interface SessionLock {
  /** False while the connection is down (the server has freed the lock); taken again once it is back. */
  readonly held: boolean;
  /** Of these names, those whose holders' connections are alive (this one's own included, while held). */
  heldOf(names: readonly string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

interface Connection {
  query(text: string, values: readonly unknown[]): Promise<Record<string, unknown>[]>;
  onEnd(listener: () => void): void;
  end(): Promise<void>;
}

interface Family {
  connect(url: URL): Promise<Connection>;
  take(connection: Connection, name: string): Promise<boolean>;
  /** Ending the connection frees the lock too, but the server may see the end a moment later. */
  release(connection: Connection, name: string): Promise<void>;
  heldOf(connection: Connection, names: readonly string[]): Promise<Set<string>>;
}

// PostgreSQL's two-key form: the first key tells these locks apart from any other use of advisory locks.
const POSTGRES_SPACE = 0x53746f72;
const postgresKey = (name: string) => createHash('sha256').update(name).digest().readUInt32BE(0) & 0x7fffffff;
// MariaDB's lock names are at most 64 characters.
const mysqlName = (name: string) => `session:${createHash('sha256').update(name).digest('hex').slice(0, 40)}`;

const postgres: Family = {
  async connect(url) {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
    // Told through onEnd; without a listener an 'error' would end the process.
    client.on('error', () => undefined);
    await client.connect();
    return {
      query: async (text, values) => (await client.query(text, [...values])).rows as Record<string, unknown>[],
      onEnd: (listener) => client.on('end', listener),
      end: () => client.end(),
    };
  },
  async take(connection, name) {
    const [row] = await connection.query('select pg_try_advisory_lock($1, $2) as taken', [POSTGRES_SPACE, postgresKey(name)]);
    return row?.taken === true;
  },
  async release(connection, name) {
    await connection.query('select pg_advisory_unlock($1, $2)', [POSTGRES_SPACE, postgresKey(name)]);
  },
  async heldOf(connection, names) {
    const keys = new Map(names.map((name) => [postgresKey(name), name]));
    const rows = await connection.query(
      `select objid::int8 as key from pg_locks where locktype = 'advisory' and granted and objsubid = 2 and classid = $1
         and database = (select oid from pg_database where datname = current_database())`,
      [POSTGRES_SPACE],
    );
    return new Set(rows.flatMap((row) => keys.get(Number(row.key)) ?? []));
  },
};

const mysql: Family = {
  async connect(url) {
    const driver = (await import('mysql2/promise')).default;
    const connection = await driver.createConnection({ uri: url.toString(), connectTimeout: 5000 });
    connection.on('error', () => undefined);
    return {
      query: async (text, values) => (await connection.query(text, [...values]))[0] as Record<string, unknown>[],
      onEnd: (listener) => {
        connection.on('end', listener);
        connection.on('error', listener);
      },
      end: () => connection.end(),
    };
  },
  async take(connection, name) {
    const [row] = await connection.query('select get_lock(?, 0) as taken', [mysqlName(name)]);
    return Number(row?.taken) === 1;
  },
  async release(connection, name) {
    await connection.query('select release_lock(?)', [mysqlName(name)]);
  },
  async heldOf(connection, names) {
    if (names.length === 0) return new Set();
    const [row] = await connection.query(`select ${names.map(() => 'is_used_lock(?) is not null').join(', ')}`, names.map(mysqlName));
    const held = Object.values(row ?? {});
    return new Set(names.filter((_, i) => Number(held[i]) === 1));
  },
};

/**
 * Takes the lock `name` on a connection of its own, and takes it again after the connection breaks (looked at every
 * `retryMs`); undefined on SQLite. Throws when the database cannot be reached at first. The name must be this holder's
 * alone (a process's random instance name): no one else ever takes it, so it is free again once its holder is gone.
 */
export async function holdSessionLock(url: string, name: string, options: { retryMs?: number } = {}): Promise<SessionLock | undefined> {
  const target = parseDatabaseUrl(url);
  if (target.dialect === 'sqlite') return undefined;
  const family = target.dialect === 'postgres' ? postgres : mysql;
  const { url: address } = target;
  let connection: Connection | undefined;
  let held = false;
  let closed = false;
  let ensuring: Promise<void> | undefined;

  async function ensure(): Promise<void> {
    if (connection === undefined) {
      const opened = await family.connect(address);
      if (closed) return await opened.end();
      connection = opened;
      opened.onEnd(() => {
        if (connection !== opened) return;
        connection = undefined;
        held = false;
        void opened.end().catch(() => undefined);
      });
    }
    if (!held) held = await family.take(connection, name);
  }
  await ensure();
  const timer = setInterval(() => {
    ensuring ??= ensure()
      .catch(() => undefined)
      .finally(() => (ensuring = undefined));
  }, options.retryMs ?? 1000);
  timer.unref();

  return {
    get held() {
      return held;
    },
    async heldOf(names) {
      if (connection === undefined) throw new Error('the session lock connection is down');
      return await family.heldOf(connection, names);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await ensuring;
      const open = connection;
      const wasHeld = held;
      connection = undefined;
      held = false;
      if (open === undefined) return;
      if (wasHeld) await family.release(open, name).catch(() => undefined);
      await open.end().catch(() => undefined);
    },
  };
}
