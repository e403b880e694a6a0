// Failed authentication, limited per client address: each made-up token costs a database lookup, so
// an address past FAILED_AUTH_LIMIT failures in a window gets 429 for the rest of it without one.
// The count is shared like every other (Redis when configured); each instance also remembers which
// addresses are over it, so a refusal needs neither the database nor Redis.
import { ApiError } from '../model/api-error.ts';
import type { WindowCounter, WindowCount } from './window-counter.ts';

/** Failed authentications an address may make per 10-second window. */
export const FAILED_AUTH_LIMIT = 20;

const MAX_BLOCKED = 10_000;

export interface FailedAuthGate {
  /** A 429 for an address over its limit, or undefined. */
  refusal(address: string): ApiError | undefined;
  /** Counts one failed authentication from the address. */
  failed(address: string): void;
}

export function failedAuthGate(counter: WindowCounter, now: () => number = Date.now): FailedAuthGate {
  const blockedUntil = new Map<string, number>();
  const counted = (address: string, { count, resetInMs }: WindowCount) => {
    if (count <= FAILED_AUTH_LIMIT) return;
    if (blockedUntil.size >= MAX_BLOCKED) blockedUntil.clear();
    blockedUntil.set(address, now() + resetInMs);
  };
  return {
    refusal(address) {
      const until = blockedUntil.get(address);
      if (until === undefined) return undefined;
      const waitMs = until - now();
      if (waitMs <= 0) {
        blockedUntil.delete(address);
        return undefined;
      }
      const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
      return new ApiError(
        429,
        `More than ${FAILED_AUTH_LIMIT} failed authentications from this address in 10 seconds; retry in ${retryAfter} s`,
        { 'retry-after': String(retryAfter) },
      );
    },
    failed(address) {
      const hit = counter.hit(`auth-failed:${address}`, now());
      if (hit instanceof Promise)
        hit.then(
          (found) => counted(address, found),
          () => undefined,
        );
      else counted(address, hit);
    },
  };
}
