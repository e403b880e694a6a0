// Window counters in Redis, so one limit holds across every instance. When Redis does not answer,
// counting goes on in this instance's memory (a local limit) and the outage is logged, rather than
// refusing or admitting every call.
import { Redis } from 'ioredis';
import { memoryWindowCounter, windowOf, WINDOW_MS, type WindowCounter } from './window-counter.ts';

export interface CounterLog {
  warn(message: string): void;
  info(message: string): void;
}

// Generous: under load the event loop lags, and a reply merely read late must not count as an outage.
const COMMAND_TIMEOUT_MS = 3000;

export function redisWindowCounter(url: string, log: CounterLog): WindowCounter {
  const redis = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  const local = memoryWindowCounter();
  let degraded = false;
  redis.on('error', () => undefined); // reported once per outage below, not per reconnect attempt
  redis.on('ready', () => {
    if (degraded) log.info('Redis answers again; rate limits are shared across instances once more');
    degraded = false;
  });

  return {
    async hit(key, now) {
      const window = windowOf(now);
      const redisKey = `store:rl:${key}:${window.id}`;
      try {
        if (redis.status !== 'ready') throw new Error(`connection ${redis.status}`);
        const result = await redis
          .multi()
          .incr(redisKey)
          .pexpire(redisKey, WINDOW_MS * 2)
          .exec();
        const count = Number(result?.[0]?.[1]);
        if (!Number.isFinite(count)) throw new Error('unexpected INCR reply');
        return { count, resetInMs: window.resetInMs };
      } catch (error) {
        if (!degraded) {
          degraded = true;
          log.warn(
            `Redis rate-limit counters unreachable (${error instanceof Error ? error.message : String(error)}); limiting per instance until it answers`,
          );
        }
        return local.hit(key, now);
      }
    },
    async close() {
      redis.disconnect();
      await local.close();
    },
  };
}
