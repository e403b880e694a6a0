// Lockout after repeated failed sign-ins. Counted per account and client address, so someone guessing
// from one address cannot lock the account's owner out everywhere; and per account across all addresses,
// with a higher limit, so guessing one account's password from many addresses still stops.
export interface LockoutPolicy {
  /** Failures from one address that lock the account for that address. */
  maxFailures: number;
  /** Failures from all addresses together that lock the account for everyone. */
  maxFailuresPerAccount: number;
  windowMs: number;
  lockMs: number;
}

export const defaultLockout: LockoutPolicy = { maxFailures: 5, maxFailuresPerAccount: 50, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };

export interface Attempt {
  at: number;
  succeeded: boolean;
}

/**
 * When the account is locked until, given its recent attempts in the order they were made, or
 * undefined when it is not. Failures count from the last success, within the window.
 */
export function lockedUntil(
  attempts: readonly Attempt[],
  now: number,
  policy: LockoutPolicy = defaultLockout,
  maxFailures = policy.maxFailures,
): number | undefined {
  const sinceSuccess = attempts.slice(attempts.findLastIndex((a) => a.succeeded) + 1);
  const failures = sinceSuccess.filter((a) => a.at > now - policy.windowMs);
  if (failures.length < maxFailures) return undefined;
  const until = (failures.at(-1)?.at ?? now) + policy.lockMs;
  return until > now ? until : undefined;
}
