// Resolved tokens, kept so a busy client's calls need no lookup each. A cached principal is honoured
// only while the revocation revision (see revocations.ts) was confirmed unchanged within the last
// CONFIRM_MS; when it moves, every cached principal is dropped. So a revocation anywhere, in any
// instance, stops its token everywhere within that bound, however long entries are kept.
import type { Principal } from './principal.ts';

const CONFIRM_MS = 250;
/** Only bounds memory and the life of an entry; revocation is handled by the revision. */
const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** Why a token is refused. */
export type TokenProblem = 'unknown' | 'expired' | 'revoked';

export interface PrincipalCache {
  /** True while cached principals may be honoured without confirming the revision first. */
  confirmed(now: number): boolean;
  /** Reads the revision (one read at a time) and drops every entry if it moved. */
  confirm(now: number): Promise<void>;
  get(tokenHash: string, now: number): Principal | undefined;
  /** Bumped by every clear; a lookup that began under an older generation must not be cached. */
  readonly generation: number;
  set(tokenHash: string, principal: Principal, now: number, generation: number): void;
  /** Why a token was refused, if it was within the last minute: unknown, expired and revoked are for good, so a flood of one bad token costs no lookups. */
  refused(tokenHash: string, now: number): TokenProblem | undefined;
  refuse(tokenHash: string, problem: TokenProblem, now: number): void;
  clear(): void;
}

export function principalCache(readRevision: () => Promise<number>): PrincipalCache {
  const entries = new Map<string, { principal: Principal; until: number }>();
  const refusals = new Map<string, { problem: TokenProblem; until: number }>();
  let generation = 0;
  let seenRevision: number | undefined;
  let confirmedAt = -Infinity;
  let confirming: Promise<void> | undefined;
  const clear = () => {
    entries.clear();
    refusals.clear();
    generation += 1;
  };
  return {
    confirmed: (now) => now - confirmedAt < CONFIRM_MS,
    confirm(now) {
      confirming ??= readRevision()
        .then(
          (revision) => {
            if (revision !== seenRevision) clear();
            seenRevision = revision;
            // From when the read began: a revocation after that is caught by the next one.
            confirmedAt = Math.max(confirmedAt, now);
          },
          (error: unknown) => {
            clear();
            throw error;
          },
        )
        .finally(() => (confirming = undefined));
      return confirming;
    },
    get(tokenHash, now) {
      const entry = entries.get(tokenHash);
      if (entry === undefined || entry.until <= now) return undefined;
      return entry.principal;
    },
    get generation() {
      return generation;
    },
    set(tokenHash, principal, now, since) {
      if (since !== generation) return;
      if (entries.size >= MAX_ENTRIES) entries.clear();
      const expires = principal.kind === 'token' && principal.expiresAt !== null ? Date.parse(principal.expiresAt) : Infinity;
      entries.set(tokenHash, { principal, until: Math.min(now + TTL_MS, expires) });
    },
    refused(tokenHash, now) {
      const entry = refusals.get(tokenHash);
      return entry === undefined || entry.until <= now ? undefined : entry.problem;
    },
    refuse(tokenHash, problem, now) {
      if (refusals.size >= MAX_ENTRIES) refusals.clear();
      refusals.set(tokenHash, { problem, until: now + TTL_MS });
    },
    clear,
  };
}
