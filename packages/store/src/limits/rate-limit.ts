// Counts every call in fixed 10-second windows and reports the figures on every response, 429s and errors
// included: X-AC-Call-Limit (the platform's), plus the standard RateLimit / RateLimit-Policy fields.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Plan } from '../db/first-start.ts';
import { ApiError } from '../http/api-error.ts';
import { callerOf } from './caller.ts';
import type { WindowCount, WindowCounter } from './window-counter.ts';

export interface RateLimitOptions {
  counter: WindowCounter;
  /** The store's plan, which sets a custom app's limit. */
  plan: () => Plan;
  now?: () => number;
}

interface Counted {
  used: number;
  limit: number;
  resetInMs: number;
}

const counted = new WeakMap<FastifyRequest, Counted>();

function headers(reply: FastifyReply, { used, limit, resetInMs }: Counted): void {
  const seconds = Math.max(1, Math.ceil(resetInMs / 1000));
  void reply.header('x-ac-call-limit', `${Math.min(used, limit)}/${limit}`);
  void reply.header('ratelimit-policy', `"default";q=${limit};w=10`);
  void reply.header('ratelimit', `"default";r=${Math.max(0, limit - used)};t=${seconds}`);
}

export const rateLimit = fp(
  (app: FastifyInstance, options: RateLimitOptions) => {
    const now = options.now ?? Date.now;

    async function count(request: FastifyRequest): Promise<Counted> {
      const caller = callerOf(request, options.plan());
      const { count: used, resetInMs }: WindowCount = await options.counter.hit(caller.key, now());
      const result = { used, limit: caller.limit, resetInMs };
      counted.set(request, result);
      return result;
    }

    app.addHook('onRequest', async (request, reply) => {
      const result = await count(request);
      headers(reply, result);
      if (result.used > result.limit) {
        const retryAfter = Math.max(1, Math.ceil(result.resetInMs / 1000));
        throw new ApiError(429, `More than ${result.limit} calls in 10 seconds; retry in ${retryAfter} s`, { 'retry-after': String(retryAfter) });
      }
    });

    // A call refused before this plugin's hook ran (by auth, say) is still counted and still told its figures.
    app.addHook('onSend', async (request, reply, payload) => {
      const result = counted.get(request) ?? (await count(request));
      headers(reply, result);
      return payload;
    });

    app.addHook('onClose', () => options.counter.close());
  },
  { name: 'rate-limit' },
);
