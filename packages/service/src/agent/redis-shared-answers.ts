// The engine's shared answers (about the parents and shared name servers) kept in Redis, so that the
// agents of a batch ask them once between them, with this agent's recent ones in memory in front.
// Only a cache: while Redis is away a lookup misses and a reply is kept in memory only; the outage is
// logged once, and its end.
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { SharedAnswers } from '@app/engine';

const DEFAULT_PREFIX = 'dh:answer:';
/** However long its TTLs, a reply is kept at most this long (a batch of 100,000 takes about an hour). */
const MAX_TTL_SECONDS = 3600;
const LOCAL_BYTES = 32 * 1024 * 1024;
// A slow reply is a miss: the question then goes to the name server, which the run would have done anyway.
const COMMAND_TIMEOUT_MS = 1000;

export interface SharedAnswerCounts {
  /** Found in this agent's memory. */
  local: number;
  /** Found in Redis (another agent asked first, or this one before its memory dropped it). */
  redis: number;
  misses: number;
}

export interface RedisSharedAnswers extends SharedAnswers {
  readonly counts: SharedAnswerCounts;
  close(): Promise<void>;
}

/** `redis://host:port/db`, `rediss://…`, or `unix:///path/to/redis.sock`; `prefix` keeps its keys apart from others' in the same Redis. */
export function redisSharedAnswers(
  url: string,
  log: (line: string) => void,
  { prefix = DEFAULT_PREFIX }: { prefix?: string } = {},
): RedisSharedAnswers {
  const options = {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
  };
  const redis = url.startsWith('unix:') ? new Redis({ ...options, path: new URL(url).pathname }) : new Redis(url, options);
  const local = new LRUCache<string, Uint8Array>({ maxSize: LOCAL_BYTES, sizeCalculation: (value, key) => value.byteLength + key.length });
  const counts: SharedAnswerCounts = { local: 0, redis: 0, misses: 0 };
  let away = false;
  const outage = (error: unknown): void => {
    if (away) return;
    away = true;
    log(`Redis does not answer (${error instanceof Error ? error.message : String(error)}); the agents' shared answers wait until it does`);
  };
  // An agent's first tests start while the connection is still being made: they wait for it a moment.
  const connected = new Promise<void>((resolve) => {
    redis.once('ready', resolve);
    redis.once('error', () => resolve());
    setTimeout(resolve, COMMAND_TIMEOUT_MS).unref();
  });
  let started = false;
  void connected.then(() => (started = true));
  redis.on('error', outage);
  redis.on('ready', () => {
    if (away) log('Redis answers again; answers are shared between agents once more');
    away = false;
  });
  const store = (key: string, reply: Uint8Array, seconds: number): void => {
    if (redis.status !== 'ready') return;
    redis.set(prefix + key, Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength), 'EX', seconds).catch(outage);
  };

  return {
    counts,
    async get(key) {
      const mine = local.get(key);
      if (mine !== undefined) {
        counts.local++;
        return mine;
      }
      if (!started) await connected;
      if (redis.status !== 'ready') {
        counts.misses++;
        return undefined;
      }
      try {
        const [value, ttl] = await Promise.all([redis.getBuffer(prefix + key), redis.pttl(prefix + key)]);
        if (value === null) {
          counts.misses++;
          return undefined;
        }
        counts.redis++;
        if (ttl > 0) local.set(key, value, { ttl });
        return value;
      } catch (error) {
        outage(error);
        counts.misses++;
        return undefined;
      }
    },
    set(key, reply, ttlSeconds) {
      const seconds = Math.min(Math.floor(ttlSeconds), MAX_TTL_SECONDS);
      if (seconds <= 0) return;
      local.set(key, reply, { ttl: seconds * 1000 });
      if (started) store(key, reply, seconds);
      else void connected.then(() => store(key, reply, seconds));
    },
    async close() {
      // Replies still being written are let through, unless Redis is away.
      const quit = redis.status === 'ready' ? redis.quit().catch(() => undefined) : undefined;
      await Promise.race([quit, new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS).unref())]);
      redis.disconnect();
      local.clear();
    },
  };
}
