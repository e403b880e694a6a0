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

const policies = new Map<number, string>();

function policy(limit: number): string {
  let text = policies.get(limit);
  if (text === undefined) {
    text = `"default";q=${limit};w=10`;
    policies.set(limit, text);
  }
  return text;
}

function headers(reply: FastifyReply, { used, limit, resetInMs }: Counted): void {
  const seconds = Math.max(1, Math.ceil(resetInMs / 1000));
  void reply.header('x-ac-call-limit', `${Math.min(used, limit)}/${limit}`);
  void reply.header('ratelimit-policy', policy(limit));
  void reply.header('ratelimit', `"default";r=${Math.max(0, limit - used)};t=${seconds}`);
}

function refusal({ limit, resetInMs }: Counted): ApiError {
  const retryAfter = Math.max(1, Math.ceil(resetInMs / 1000));
  return new ApiError(429, `More than ${limit} calls in 10 seconds; retry in ${retryAfter} s`, { 'retry-after': String(retryAfter) });
}

// Callback-style hooks: with the in-memory counter a call is counted without waiting on any promise.
export const rateLimit = fp(
  (app: FastifyInstance, options: RateLimitOptions) => {
    const now = options.now ?? Date.now;

    function count(request: FastifyRequest, reply: FastifyReply, then: (result: Counted) => void, fail: (error: unknown) => void): void {
      const caller = callerOf(request, options.plan());
      const settle = ({ count: used, resetInMs }: WindowCount) => {
        const result = { used, limit: caller.limit, resetInMs };
        counted.set(request, result);
        headers(reply, result);
        then(result);
      };
      const hit = options.counter.hit(caller.key, now());
      if (hit instanceof Promise) hit.then(settle, fail);
      else settle(hit);
    }

    app.addHook('onRequest', (request, reply, done) => {
      count(request, reply, (result) => done(result.used > result.limit ? refusal(result) : undefined), (error) => done(error as Error));
    });

    // A call refused before this plugin's hook ran (by auth, say) is still counted and still told its figures;
    // one counted above already carries them (an error answer keeps the headers set before it).
    app.addHook('onSend', (request, reply, payload, done) => {
      if (counted.has(request)) {
        done(null, payload);
        return;
      }
      count(request, reply, () => done(null, payload), (error) => done(error as Error));
    });

    app.addHook('onClose', () => options.counter.close());
  },
  { name: 'rate-limit' },
);
