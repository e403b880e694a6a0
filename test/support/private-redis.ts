// A Redis server of a test's or bench's own: redis-server on a Unix socket in a temporary folder (no
// TCP port, nothing saved), so the machine's Redis is never disturbed, and agents inside the lab's
// network namespace reach it through the shared file system. It can be restarted mid-run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';

export interface PrivateRedis {
  /** unix:///…/redis.sock, for DNS_SERVICE_REDIS_URL. */
  url: string;
  /** INFO's fields (memory, stats, keyspace). */
  info(): Promise<Record<string, string>>;
  /** Stops the server (its data lost, as after a crash), waits `downMs`, starts it again. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** Why no private Redis can be started here, or undefined. */
export function privateRedisUnavailableReason(): string | undefined {
  return spawnSync('redis-server', ['--version']).status === 0
    ? undefined
    : 'redis-server is not installed (Debian: apt-get install redis-server)';
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'private-redis-'));
  const socket = join(dir, 'redis.sock');
  let server: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    server = spawn(
      'redis-server',
      ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '777', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100 && !existsSync(socket); i++) await delay(50);
    if (!existsSync(socket)) throw new Error('redis-server did not open its socket within 5 s');
  };
  const halt = async (): Promise<void> => {
    if (server === undefined || server.exitCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGKILL');
    await exited;
    rmSync(socket, { force: true });
  };
  await start();
  return {
    url: `unix://${socket}`,
    info: async () => {
      const client = new Redis({ path: socket, maxRetriesPerRequest: 0, lazyConnect: true });
      try {
        await client.connect();
        const text = await client.info();
        return Object.fromEntries(
          text.split(/\r?\n/).flatMap((line) => (line.includes(':') ? [line.split(/:(.*)/s).slice(0, 2) as [string, string]] : [])),
        );
      } finally {
        client.disconnect();
      }
    },
    restart: async (downMs) => {
      await halt();
      await delay(downMs);
      await start();
    },
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
