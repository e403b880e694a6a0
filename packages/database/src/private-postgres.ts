// A PostgreSQL server of a test's own, so that the test may stop and start it: initdb into a temporary
// folder, then pg_ctl, on a free port of 127.0.0.1 and a Unix socket in that folder. The machine's shared
// server, which other suites use, is never touched.
// PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (runuser).
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** The folder holding the server's Unix socket. */
  socketDir: string;
  port: number;
  /** The `postgres` database as the superuser, through the socket. */
  adminUrl: string;
  /** A database's URL on this server, through the socket. */
  url(database: string): string;
  /** Creates a database and gives its URL over TCP (for processes that take a host and port). */
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown: running transactions are rolled back, connections cut. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server, waits `downMs`, and starts it again. */
  restart(downMs: number): Promise<void>;
  /** Stops the server and removes its folder. */
  remove(): Promise<void>;
}

/** The newest installed PostgreSQL's bin folder with initdb and pg_ctl, if any. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

const asRoot = userInfo().uid === 0;

/** Why a private server cannot be started here, or undefined when it can. */
export function privatePostgresUnavailableReason(): string | undefined {
  if (postgresBinDir() === undefined)
    return 'no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin to start a private server';
  if (asRoot && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    return 'running as root without runuser, and PostgreSQL refuses to run as root';
  if (asRoot && postgresIds() === undefined) return 'running as root without a postgres user to run a private PostgreSQL server as';
  return undefined;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error(privatePostgresUnavailableReason());
  const dir = mkdtempSync(join(tmpdir(), 'pg-private-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const port = await freePort();
  const tool = async (name: string, args: string[]) => {
    const [command, full] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, name), ...args]] : [join(bin, name), args];
    await run(command, full, { timeout: 120_000 });
  };
  const ids = asRoot ? postgresIds() : undefined;
  if (ids !== undefined) chownSync(dir, ids.uid, ids.gid);
  // Durability is not what this server is for: no fsync, quick start.
  const options = `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => tool('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', '-o', options, 'start']);
  const stop = (mode: 'fast' | 'immediate') => tool('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
  try {
    await tool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `the private PostgreSQL server did not start: ${(error as Error).message}${existsSync(log) ? `\n${readFileSync(log, 'utf8').slice(-2000)}` : ''}`,
    );
  }
  const url = (database: string) => `postgres://postgres@localhost:${port}/${database}?host=${dir}`;
  return {
    socketDir: dir,
    port,
    adminUrl: url('postgres'),
    url,
    createDatabase: async (name) => {
      await tool('createdb', ['-h', dir, '-p', String(port), '-U', 'postgres', name]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop: () => stop('fast'),
    start,
    restart: async (downMs) => {
      await stop('fast');
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    remove: async () => {
      await stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `postgres` user's ids, from /etc/passwd. */
export function postgresIds(): { uid: number; gid: number } | undefined {
  const fields = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'))
    ?.split(':');
  return fields === undefined ? undefined : { uid: Number(fields[2]), gid: Number(fields[3]) };
}
