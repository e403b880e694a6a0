// The agents' shared answers in Redis (127.0.0.1:6379, or TEST_REDIS_URL): what one agent keeps,
// another finds; with Redis away a lookup misses at once and nothing throws.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSharedAnswers } from '../src/agent/redis-shared-answers.ts';

const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisSkip(): Promise<string | false> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  try {
    await probe.connect();
    await probe.ping();
    return false;
  } catch (error) {
    return `Redis not reachable at ${url} (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    probe.disconnect();
  }
}

const skip = await redisSkip();

describe('shared answers in Redis', () => {
  test('one agent keeps a reply, another finds it, until its TTL', { skip }, async () => {
    const prefix = `dh:answer:test:${process.pid}:${Date.now()}:`;
    const lines: string[] = [];
    const [first, second] = [
      redisSharedAnswers(url, (l) => lines.push(l), { prefix }),
      redisSharedAnswers(url, (l) => lines.push(l), { prefix }),
    ];
    try {
      const reply = Uint8Array.from([1, 2, 3, 4]);
      assert.equal(await second.get('q'), undefined);
      first.set('q', reply, 1);
      first.set('never', reply, 0);
      let found: Uint8Array | undefined;
      for (let i = 0; i < 50 && found === undefined; i++) {
        found = await second.get('q');
        if (found === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(found === undefined ? undefined : [...found], [1, 2, 3, 4]);
      assert.equal(second.counts.redis, 1, 'found in Redis, not in its own memory');
      assert.equal(await second.get('never'), undefined, 'a reply with no TTL is not kept');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal(await first.get('q'), undefined, 'gone after its TTL, from memory too');
      assert.deepEqual(lines, []);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  test("Redis away: lookups miss, replies stay in this agent's memory, the outage is said once", async () => {
    // A port that accepts nothing: a server opened and closed again.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const lines: string[] = [];
    const shared = redisSharedAnswers(`redis://127.0.0.1:${port}`, (l) => lines.push(l));
    try {
      const started = performance.now();
      assert.equal(await shared.get('q'), undefined);
      shared.set('q', Uint8Array.from([9]), 60);
      assert.deepEqual([...((await shared.get('q')) ?? [])], [9]);
      assert.ok(performance.now() - started < 3000, 'no long wait for an absent Redis');
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0], /Redis does not answer/);
    } finally {
      await shared.close();
    }
  });
});
