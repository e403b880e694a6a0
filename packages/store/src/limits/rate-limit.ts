// Counts every call in fixed 10-second windows and reports the figures on every response, 429s and errors
// included: X-AC-Call-Limit (the platform's), plus the standard RateLimit / RateLimit-Policy fields.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Plan } from './plans.ts';
import { ApiError } from '../model/api-error.ts';
import { routeConfigOf } from '../model/route-config.ts';
import { callerOf } from './caller.ts';
import { callLimitField, policyField, remainingField, secondsToReset } from './rate-limit-fields.ts';
import type { WindowCount, WindowCounter } from './window-counter.ts';

export interface RateLimitOptions {
  counter: WindowCounter;
  /** The store's plan, which sets a custom app's limit. */
  plan: () => Plan;
  now?: () => number;
}

export interface Counted {
  used: number;
  limit: number;
  resetInMs: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** This call's count, once the rate limiter has counted it. */
    callCount: Counted | undefined;
  }
}

function counted(request: FastifyRequest): boolean {
  return routeConfigOf(request).notRateLimited !== true;
}

function headers(reply: FastifyReply, counted: Counted): void {
  void reply.header('x-ac-call-limit', callLimitField(counted));
  void reply.header('ratelimit-policy', policyField(counted.limit));
  void reply.header('ratelimit', remainingField(counted));
}

function refusal({ limit, resetInMs }: Counted): ApiError {
  const retryAfter = secondsToReset(resetInMs);
  return new ApiError(429, `More than ${limit} calls in 10 seconds; retry in ${retryAfter} s`, { 'retry-after': String(retryAfter) });
}

// Callback-style hooks: with the in-memory counter a call is counted without waiting on any promise.
export const rateLimit = fp(
  (app: FastifyInstance, options: RateLimitOptions) => {
    const now = options.now ?? Date.now;

    // A property on the request rather than a WeakMap entry: cheaper to set, and nothing for the GC to trace.
    if (!app.hasRequestDecorator('callCount')) app.decorateRequest('callCount', undefined);

    function record(request: FastifyRequest, reply: FastifyReply, limit: number, { count: used, resetInMs }: WindowCount): Counted {
      const result = { used, limit, resetInMs };
      request.callCount = result;
      headers(reply, result);
      return result;
    }

    function count(request: FastifyRequest, reply: FastifyReply): Counted | Promise<Counted> {
      const caller = callerOf(request, options.plan());
      const hit = options.counter.hit(caller.key, now());
      return hit instanceof Promise
        ? hit.then((found) => record(request, reply, caller.limit, found))
        : record(request, reply, caller.limit, hit);
    }

    app.addHook('onRequest', (request, reply, done) => {
      if (!counted(request)) {
        done();
        return;
      }
      const result = count(request, reply);
      if (result instanceof Promise)
        result.then(
          (found) => done(found.used > found.limit ? refusal(found) : undefined),
          (error: unknown) => done(error as Error),
        );
      else done(result.used > result.limit ? refusal(result) : undefined);
    });

    // A call refused before this plugin's hook ran (by auth, say) is still counted and still told its figures;
    // one counted above already carries them (an error answer keeps the headers set before it).
    app.addHook('onSend', (request, reply, payload, done) => {
      if (request.callCount !== undefined || !counted(request)) {
        done(null, payload);
        return;
      }
      const result = count(request, reply);
      if (result instanceof Promise)
        result.then(
          () => done(null, payload),
          (error: unknown) => done(error as Error),
        );
      else done(null, payload);
    });

    app.addHook('onClose', () => options.counter.close());
  },
  { name: 'rate-limit' },
);
