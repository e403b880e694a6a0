// The pieces of a batch run in the lab that bench:batch and the kill-and-restart test share: a
// throwaway PostgreSQL database, the API (`dns-service serve`) on the host, and agents
// (`dns-service agent`) as separate processes inside the lab's namespace.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { migrateToLatest, openDatabase, type Database } from '@app/database';
import type { Lab } from '@app/lab';
import { sql } from 'kysely';
import { agentHeapMb, migrations, PRODUCT, resultEntries, type ServiceSchema } from '@app/service';

export const serviceBin = resolve(import.meta.dirname, '../../packages/service/bin/dns-service.ts');
// Inside the lab 127.0.0.1 is the lab's own loopback: agents reach PostgreSQL through its Unix socket.
const socketDir = process.env.BENCH_PG_SOCKET_DIR ?? '/var/run/postgresql';
const adminUrl = `postgres://postgres@localhost/postgres?host=${socketDir}`;

export interface BatchDatabase {
  name: string;
  /** Through the Unix socket (from inside the lab and from the host alike). */
  url: string;
  database: Database<ServiceSchema>;
  /** Bytes the database takes on disk (pg_database_size). */
  size(): Promise<number>;
  drop(): Promise<void>;
}

/** Whether PostgreSQL answers on its Unix socket; the reason when it does not. */
export async function postgresUnavailableReason(): Promise<string | undefined> {
  try {
    const admin = await openDatabase(adminUrl);
    await admin.close();
    return undefined;
  } catch (error) {
    return `PostgreSQL not reachable through ${socketDir} (${(error as Error).message})`;
  }
}

/** A PostgreSQL server reached through its Unix socket: the shared one by default, or a test's own (@app/database/testing's startPrivatePostgres). */
export interface PostgresServer {
  adminUrl: string;
  url(database: string): string;
}

const sharedServer: PostgresServer = { adminUrl, url: (database) => `postgres://postgres@localhost/${database}?host=${socketDir}` };

export async function createBatchDatabase(prefix: string, server: PostgresServer = sharedServer): Promise<BatchDatabase> {
  const name = `${prefix}_${process.pid}_${Date.now() % 1_000_000}`;
  const admin = await openDatabase(server.adminUrl);
  await sql.raw(`CREATE DATABASE ${name}`).execute(admin.db);
  const url = server.url(name);
  const database = await openDatabase<ServiceSchema>(url);
  await migrateToLatest(database, PRODUCT, migrations);
  return {
    name,
    url,
    database,
    size: async () =>
      Number((await sql<{ bytes: string }>`select pg_database_size(current_database()) as bytes`.execute(database.db)).rows[0]?.bytes),
    drop: async () => {
      await database.close();
      await sql.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).execute(admin.db);
      await admin.close();
    },
  };
}

/** A config file for agents: `parallel` batch tests at once, quick polling. */
export function agentConfig(parallel: number, extra = ''): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'batch-agent-'));
  const path = join(dir, 'backend_config.ini');
  writeFileSync(
    path,
    `[DB]\npolling_interval = 0.2\n\n[ZONEMASTER]\nnumber_of_processes_for_frontend_testing = 0\nnumber_of_processes_for_batch_testing = ${parallel}\n${extra}`,
  );
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface AgentProcess {
  child: ChildProcess;
  /** Lines it wrote on stderr (its log). */
  log: string[];
  /** Its RSS now and its peak (VmHWM), in MB; undefined once it is gone. */
  memory(): { rssMb: number; peakMb: number } | undefined;
  /** CPU seconds it has used (user + system); undefined once it is gone. */
  cpuSeconds(): number | undefined;
  kill(signal: NodeJS.Signals): void;
  exited: Promise<void>;
}

/** The agent's own pid: lab.spawn runs it through nsenter, which forks it as its only child. */
function innerPid(child: ChildProcess): number | undefined {
  try {
    const pid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** `redisUrl`: the agents share answers about the parents there (DNS_SERVICE_REDIS_URL). `heapMb`: V8's heap limit. */
export function spawnAgent(lab: Lab, configPath: string, databaseUrl: string, redisUrl?: string, heapMb = agentHeapMb): AgentProcess {
  const env = { DNS_SERVICE_DATABASE_URL: databaseUrl, ...(redisUrl !== undefined && { DNS_SERVICE_REDIS_URL: redisUrl }) };
  const child = lab.spawn(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, serviceBin, 'agent', '--config', configPath, '--grace', '0'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const log: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => log.push(line));
  const exited = once(child, 'exit').then(() => undefined);
  return {
    child,
    log,
    exited,
    memory: () => {
      try {
        const status = readFileSync(`/proc/${innerPid(child)}/status`, 'utf8');
        const mb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) / 1024;
        return { rssMb: mb('VmRSS'), peakMb: mb('VmHWM') };
      } catch {
        return undefined;
      }
    },
    cpuSeconds: () => {
      try {
        // Fields 14 and 15 of /proc/PID/stat (after the parenthesised name), in clock ticks of 1/100 s.
        const fields = readFileSync(`/proc/${innerPid(child)}/stat`, 'utf8')
          .replace(/^.*\) /s, '')
          .split(' ');
        return (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        return undefined;
      }
    },
    // nsenter does not pass signals on: the agent itself is signalled, and nsenter ends with it.
    kill: (signal) => {
      const pid = innerPid(child);
      if (pid !== undefined) process.kill(pid, signal);
      else child.kill(signal);
    },
  };
}

export interface Api {
  url: string;
  call<T>(method: string, params: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** `dns-service serve` on the host's loopback (it needs no DNS), with an API user for batches. */
export async function startApi(databaseUrl: string, maxBatch: number): Promise<Api> {
  const child = spawn(process.execPath, [serviceBin, 'serve', '--listen', '127.0.0.1:0'], {
    env: {
      ...process.env,
      DNS_SERVICE_DATABASE_URL: databaseUrl,
      DNS_SERVICE_ENABLE_ADD_API_USER: 'true',
      DNS_SERVICE_MAX_BATCH_SIZE: String(maxBatch),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let url = '';
  for await (const line of createInterface({ input: child.stdout })) {
    url = /JSON-RPC API on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
    if (url !== '') break;
  }
  if (url === '') throw new Error('dns-service serve did not say where it listens');
  let id = 0;
  const call = async <T>(method: string, params: unknown): Promise<T> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string; data?: unknown } };
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message} ${JSON.stringify(body.error.data ?? '')}`);
    return body.result as T;
  };
  await call('add_api_user', { username: 'bench', api_key: 'bench-key' });
  return {
    url,
    call,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface BatchProgress {
  nb_finished: number;
  nb_running: number;
  finished_test_ids: string[];
}

/** Finished tests whose results say the run died or was stopped (a BACKEND entry); only critical ones can. */
export async function testsEndedByBackend(database: Database<ServiceSchema>, testIds?: number[]): Promise<number[]> {
  let query = database.db.selectFrom('dh_test').select('id').where('progress', '=', 100).where('overall_result', '=', 'critical');
  if (testIds !== undefined) query = query.where('id', 'in', testIds.length > 0 ? testIds : [-1]);
  const died: number[] = [];
  for (const { id } of await query.execute()) if ((await resultEntries(database.db, id)).some((e) => e.module === 'BACKEND')) died.push(id);
  return died;
}
