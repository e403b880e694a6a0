// 200 concurrent clients for 30 s against one token, loopback only: the servers never admit more calls in a
// window than the limit allows, and never fail. With Redis the clients are split over two instances sharing
// it, so the limit is held across instances under load; without Redis, one instance counts in memory.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ThrowawayDatabase } from '@app/database/testing';
import { Agent, request } from 'undici';
import { WINDOW_MS } from '../src/limits/window-counter.ts';
import type { ServeOptions } from '../src/server.ts';
import { REDIS_URL, redisSkip, sqliteTarget } from './support/targets.ts';

const CLIENTS = 200;
const DURATION_MS = 30_000;
const LIMIT = 50; // gold

const sqlite = await sqliteTarget();
const withRedis = (await redisSkip()) === false;
const INSTANCES = withRedis ? 2 : 1;

interface Call {
  start: number;
  end: number;
  status: number;
  used: number;
}

interface Instance {
  process: ChildProcess;
  apiUrl: string;
  certificate: string;
  token: string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'store-load-'));
const instances: Instance[] = [];
let throwaway: ThrowawayDatabase | undefined;
before(async () => {
  // One database, as behind a load balancer (a token is valid on every instance), and one data
  // directory, so every instance serves the same certificate.
  throwaway = await sqlite.create();
  for (let i = 0; i < INSTANCES; i += 1) {
    const options: ServeOptions = {
      databaseUrl: throwaway.url,
      dataDir,
      host: '127.0.0.1',
      port: 0,
      plan: 'gold',
      logLevel: 'error',
      ...(withRedis ? { redisUrl: REDIS_URL } : {}),
    };
    const child = fork(new URL('./support/store-process.ts', import.meta.url), [JSON.stringify(options)], { stdio: 'inherit' });
    const [started] = (await once(child, 'message')) as [{ apiUrl: string; certificate: string; token: string }];
    instances.push({ process: child, ...started });
  }
});
after(async () => {
  for (const instance of instances) {
    if (instance.process.connected) {
      instance.process.disconnect();
      await once(instance.process, 'exit');
    }
  }
  await throwaway?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test(
  `${CLIENTS} clients for ${DURATION_MS / 1000} s on one token, over ${INSTANCES} instance(s), never get more than ${LIMIT} calls into a window`,
  { timeout: DURATION_MS + 60_000 },
  async () => {
    const dispatcher = new Agent({ connect: { ca: instances[0]?.certificate ?? '' }, connections: CLIENTS, pipelining: 1 });
    const token = instances[0]?.token ?? '';
    const calls: Call[] = [];
    const failures: string[] = [];
    const stopAt = Date.now() + DURATION_MS;
    const client = async (index: number) => {
      const apiUrl = instances[index % instances.length]?.apiUrl ?? '';
      while (Date.now() < stopAt) {
        const start = Date.now();
        try {
          const response = await request(`${apiUrl}/products.json?count=5`, { headers: { 'x-ac-auth-token': token }, dispatcher });
          await response.body.text();
          const used = Number(String(response.headers['x-ac-call-limit']).split('/')[0]);
          calls.push({ start, end: Date.now(), status: response.statusCode, used });
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
    await dispatcher.close();

    assert.deepEqual(failures, [], 'no connection ever failed');
    const statuses = new Set(calls.map((c) => c.status));
    assert.deepEqual(
      [...statuses].filter((st) => st !== 200 && st !== 429),
      [],
      'only 200 and 429 answers',
    );
    const admitted = calls.filter((c) => c.status === 200);
    assert.ok(
      admitted.every((c) => c.used >= 1 && c.used <= LIMIT),
      'every admitted call was within the limit when counted',
    );

    const perWindow = new Map<number, number>();
    for (const call of admitted) {
      const window = Math.floor(call.start / WINDOW_MS);
      if (window === Math.floor(call.end / WINDOW_MS)) perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
    }
    for (const [window, count] of perWindow) assert.ok(count <= LIMIT, `window ${window} admitted ${count} calls`);
    // A reduce, not Math.max(...): a fast server answers more calls than a spread can pass as arguments.
    const lastEnd = calls.reduce((max, c) => Math.max(max, c.end), -Infinity);
    const firstStart = calls.reduce((min, c) => Math.min(min, c.start), Infinity);
    const windowsTouched = Math.floor(lastEnd / WINDOW_MS) - Math.floor(firstStart / WINDOW_MS) + 1;
    assert.ok(admitted.length <= LIMIT * windowsTouched, `${admitted.length} admitted over ${windowsTouched} windows`);
    assert.ok(admitted.length >= LIMIT * (windowsTouched - 2), 'and the limit was actually reached in the full windows');
    console.log(
      `# ${calls.length} calls, ${admitted.length} admitted over ${windowsTouched} windows, ${calls.length - admitted.length} refused with 429`,
    );
  },
);
