// Several instances behind one load balancer: each tells the others, over Redis pub/sub, which resources a
// write changed, so their cached reads are dropped too. A message lost while Redis is down leaves a peer's
// entry stale for at most the resource's max-age, which is how long an entry lives anyway.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { CounterLog } from '../limits/redis-window-counter.ts';
import type { ResponseCache } from './response-cache.ts';

const CHANNEL = 'store:cache:writes';

export interface SharedInvalidation {
  close(): Promise<void>;
}

export function shareInvalidations(cache: ResponseCache, url: string, log: CounterLog): SharedInvalidation {
  const me = randomUUID();
  const options = { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000) };
  const publisher = new Redis(url, options);
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true });
  let warned = false;
  const warn = (error: unknown) => {
    if (warned) return;
    warned = true;
    log.warn(
      `Redis cache invalidation unreachable (${error instanceof Error ? error.message : String(error)}); other instances may serve reads up to their max-age old`,
    );
  };
  publisher.on('error', warn);
  subscriber.on('error', warn);
  subscriber.on('ready', () => (warned = false));
  subscriber.subscribe(CHANNEL).catch(warn);
  subscriber.on('message', (_channel: string, text: string) => {
    try {
      const message = JSON.parse(text) as { from?: string; tags?: unknown };
      if (message.from !== me && Array.isArray(message.tags)) cache.invalidateFromPeer(message.tags.map(String));
    } catch {
      // Not ours; ignore.
    }
  });
  cache.onWrite = (tags) => {
    publisher.publish(CHANNEL, JSON.stringify({ from: me, tags })).catch(warn);
  };
  return {
    close: () => {
      cache.onWrite = undefined;
      publisher.disconnect();
      subscriber.disconnect();
      return Promise.resolve();
    },
  };
}
