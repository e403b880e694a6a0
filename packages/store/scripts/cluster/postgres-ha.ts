// PostgreSQL that fails over, all in one folder: etcd, two Patroni nodes (a primary and a synchronous streaming
// standby, each with its own data folder and ports) and HAProxy leading to whichever is primary. Every port is a
// free one of 127.0.0.1; the machine's own PostgreSQL is never touched. PostgreSQL refuses to run as root, so as
// root every process here runs as the `postgres` user, which owns the folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, postgresBinDir, postgresIds } from '@app/database/testing';
import { HAPROXY } from './cluster.ts';
import { patroniConfig, type PatroniNode } from './patroni-config.ts';
import { postgresHaproxyConfig } from './postgres-haproxy-config.ts';

export const PATRONI = process.env.PATRONI ?? '/usr/bin/patroni';
export const ETCD = process.env.ETCD ?? '/usr/bin/etcd';

export type Role = 'primary' | 'replica' | 'down';

export interface HaNode extends PatroniNode {
  /** http://127.0.0.1:<restPort>: Patroni's REST API (/primary, /replica, /patroni). */
  restUrl: string;
}

export interface PostgresHa {
  /** Holds every process's files and logs (<name>.log); removed by stop(). */
  dir: string;
  /** HAProxy's port: the current primary, whichever node it is. */
  port: number;
  nodes: HaNode[];
  /** A database's URL through HAProxy. */
  url(database: string): string;
  /** Creates a database (on the primary, so on both) and gives its URL through HAProxy. */
  createDatabase(name: string): Promise<string>;
  /** What the node's Patroni says it is. */
  role(node: HaNode): Promise<Role>;
  /** Until the node is `role` (`sync`: the synchronous standby); throws after `timeoutMs`. */
  waitFor(node: HaNode, role: 'primary' | 'replica' | 'sync', timeoutMs?: number): Promise<void>;
  /** The node that is primary now (waiting up to `timeoutMs` for one). */
  primary(timeoutMs?: number): Promise<HaNode>;
  /** SIGKILL to the primary's postmaster, as a crash would: answers the node it ran on and when (ms since the epoch). */
  killPrimaryPostgres(): Promise<{ node: HaNode; at: number }>;
  /** Stops everything and removes the folder. */
  stop(): Promise<void>;
}

const asRoot = userInfo().uid === 0;

/** Why the HA set cannot start here, or undefined when it can. */
export function postgresHaUnavailableReason(): string | undefined {
  const missing = [
    ...(existsSync(PATRONI) ? [] : [`Patroni (${PATRONI}; Debian package patroni)`]),
    ...(existsSync(ETCD) ? [] : [`etcd (${ETCD}; Debian package etcd-server)`]),
    ...(existsSync(HAPROXY) ? [] : [`HAProxy (${HAPROXY})`]),
    ...(postgresBinDir() === undefined ? ['PostgreSQL server binaries under /usr/lib/postgresql/*/bin'] : []),
  ];
  if (missing.length > 0) return `not installed: ${missing.join(', ')}`;
  if (asRoot && postgresIds() === undefined) return 'running as root without a postgres user to run PostgreSQL as';
  return undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>, log?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s${log === undefined ? '' : `\n${log()}`}`);
    await sleep(200);
  }
}

const tail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').slice(-3000) : '');

/** `durable: false` (tests) turns fsync off. */
export async function startPostgresHa(options: { durable?: boolean } = {}): Promise<PostgresHa> {
  const unavailable = postgresHaUnavailableReason();
  if (unavailable !== undefined) throw new Error(`PostgreSQL HA cannot start: ${unavailable}`);
  const binDir = postgresBinDir() ?? '';
  // In the system's temporary folder, which the postgres user can reach (a caller's folder may not be).
  const dir = mkdtempSync(join(tmpdir(), 'pg-ha-'));
  const ids = asRoot ? postgresIds() : undefined;
  if (ids !== undefined) chownSync(dir, ids.uid, ids.gid);
  const owned = (path: string) => {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    if (ids !== undefined) chownSync(path, ids.uid, ids.gid);
    return path;
  };
  const children: ChildProcess[] = [];
  const run = (name: string, command: string, args: string[]) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: dir },
      ...(ids === undefined ? {} : { uid: ids.uid, gid: ids.gid }),
    });
    const log = createWriteStream(join(dir, `${name}.log`), { flags: 'a' });
    // Both into one file: neither ends it, the exit does.
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
    children.push(child);
    return child;
  };

  const etcdPort = await freePort();
  const etcdPeerPort = await freePort();
  const haproxyPort = await freePort();
  const nodes: HaNode[] = [];
  for (const name of ['pg1', 'pg2']) {
    const restPort = await freePort();
    nodes.push({
      name,
      pgPort: await freePort(),
      restPort,
      restUrl: `http://127.0.0.1:${restPort}`,
      dataDir: join(dir, name, 'data'),
      runDir: owned(join(dir, name)),
    });
  }
  const patronis = new Map<string, ChildProcess>();
  const url = (database: string) => `postgres://postgres@127.0.0.1:${haproxyPort}/${database}`;

  const role = async (node: HaNode): Promise<Role> => {
    if ((await status(`${node.restUrl}/primary`)) === 200) return 'primary';
    return (await status(`${node.restUrl}/replica`)) === 200 ? 'replica' : 'down';
  };
  const postmasterPid = (node: HaNode): number | undefined => {
    const file = join(node.dataDir, 'postmaster.pid');
    const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : Number.NaN;
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  };

  const killPostmaster = (node: HaNode) => {
    const pid = postmasterPid(node);
    try {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  // Should this process end without stop() (a crash, an uncaught error), nothing is left running.
  const killOnExit = () => {
    for (const child of children) child.kill('SIGKILL');
    for (const node of nodes) killPostmaster(node);
  };
  process.once('exit', killOnExit);

  const stop = async () => {
    process.off('exit', killOnExit);
    // Patroni stops its PostgreSQL on SIGTERM; one that does not within 20 s is killed, and its postmaster with it.
    await Promise.all(
      [...patronis].map(async ([name, child]) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
        const node = nodes.find((each) => each.name === name);
        if (node !== undefined) killPostmaster(node);
      }),
    );
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
    // PG_HA_KEEP=1 leaves the folder for its logs.
    if (process.env.PG_HA_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
    else console.error(`PostgreSQL HA logs kept in ${dir}`);
  };

  try {
    const etcd = run('etcd', ETCD, [
      '--name',
      'etcd1',
      '--data-dir',
      owned(join(dir, 'etcd')),
      '--listen-client-urls',
      `http://127.0.0.1:${etcdPort}`,
      '--advertise-client-urls',
      `http://127.0.0.1:${etcdPort}`,
      '--listen-peer-urls',
      `http://127.0.0.1:${etcdPeerPort}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${etcdPeerPort}`,
      '--initial-cluster',
      `etcd1=http://127.0.0.1:${etcdPeerPort}`,
      '--log-level',
      'warn',
    ]);
    await until(
      'etcd did not answer',
      30_000,
      async () => {
        if (etcd.exitCode !== null) throw new Error(`etcd exited (${etcd.exitCode}):\n${tail(join(dir, 'etcd.log'))}`);
        return (await status(`http://127.0.0.1:${etcdPort}/health`)) === 200;
      },
      () => tail(join(dir, 'etcd.log')),
    );

    const settings = { scope: 'store', etcdPort, binDir, durable: options.durable ?? true };
    const startNode = (node: HaNode) => {
      const configFile = join(node.runDir, 'patroni.yml');
      writeFileSync(configFile, patroniConfig(node, settings), { mode: 0o600 });
      if (ids !== undefined) chownSync(configFile, ids.uid, ids.gid);
      patronis.set(node.name, run(node.name, PATRONI, [configFile]));
    };
    const [first, second] = nodes as [HaNode, HaNode];
    const running = (node: HaNode) => {
      const child = patronis.get(node.name);
      if (child?.exitCode !== null) throw new Error(`Patroni ${node.name} exited:\n${tail(join(dir, `${node.name}.log`))}`);
    };
    // One after the other: the first makes the cluster (initdb) and leads, the second copies it and follows.
    startNode(first);
    await until(
      'the first Patroni node did not become primary',
      90_000,
      async () => (running(first), (await role(first)) === 'primary'),
      () => tail(join(dir, `${first.name}.log`)),
    );
    startNode(second);
    // /sync: the standby is the synchronous one, so from here every commit waits for it.
    await until(
      'the second Patroni node did not become the synchronous standby',
      90_000,
      async () => (running(second), (await status(`${second.restUrl}/sync`)) === 200),
      () => tail(join(dir, `${second.name}.log`)),
    );

    const pidFile = join(dir, 'haproxy.pid');
    const configFile = join(dir, 'haproxy.cfg');
    writeFileSync(configFile, postgresHaproxyConfig({ port: haproxyPort, nodes, pidFile }));
    if (ids !== undefined) chownSync(configFile, ids.uid, ids.gid);
    const haproxy = run('haproxy', HAPROXY, ['-db', '-f', configFile]);
    // HAProxy starts with every server up until its checks say otherwise: a few connections in a row (round robin)
    // must all reach the primary.
    let inARow = 0;
    await until(
      'HAProxy did not lead to the primary',
      15_000,
      async () => {
        if (haproxy.exitCode !== null) throw new Error(`haproxy exited (${haproxy.exitCode}):\n${tail(join(dir, 'haproxy.log'))}`);
        const client = new pg.Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1000 });
        try {
          await client.connect();
          const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
          inARow = rows[0]?.standby === false ? inARow + 1 : 0;
          return inARow >= 4;
        } catch {
          inARow = 0;
          return false;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      () => tail(join(dir, 'haproxy.log')),
    );

    const primary = async (timeoutMs = 30_000): Promise<HaNode> => {
      let found: HaNode | undefined;
      await until('no node became primary', timeoutMs, async () => {
        for (const node of nodes) if ((await role(node)) === 'primary') found = node;
        return found !== undefined;
      });
      return found as HaNode;
    };

    return {
      dir,
      port: haproxyPort,
      nodes,
      url,
      async createDatabase(name) {
        const client = new pg.Client({ connectionString: url('postgres') });
        await client.connect();
        try {
          const found = await client.query('select 1 from pg_database where datname = $1', [name]);
          if (found.rowCount === 0) await client.query(`create database "${name.replaceAll('"', '""')}"`);
        } finally {
          await client.end();
        }
        return url(name);
      },
      role,
      waitFor: (node, wanted, timeoutMs = 60_000) =>
        until(
          `${node.name} did not become ${wanted}`,
          timeoutMs,
          async () => (wanted === 'sync' ? (await status(`${node.restUrl}/sync`)) === 200 : (await role(node)) === wanted),
          () => tail(join(dir, `${node.name}.log`)),
        ),
      primary,
      async killPrimaryPostgres() {
        const node = await primary();
        const pid = postmasterPid(node);
        if (pid === undefined) throw new Error(`${node.name} is primary but has no postmaster.pid`);
        const at = Date.now();
        process.kill(pid, 'SIGKILL');
        return { node, at };
      },
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
