// Resolved tokens, kept for a second: a busy client's calls then cost one lookup a second, not one
// each. Revoking anything in this process empties it; another instance sees a revocation within the TTL.
import type { Principal } from './principal.ts';

const TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

export interface PrincipalCache {
  get(tokenHash: string, now: number): Principal | undefined;
  set(tokenHash: string, principal: Principal, now: number): void;
  clear(): void;
}

export function principalCache(): PrincipalCache {
  const entries = new Map<string, { principal: Principal; until: number }>();
  return {
    get(tokenHash, now) {
      const entry = entries.get(tokenHash);
      if (entry === undefined || entry.until <= now) return undefined;
      return entry.principal;
    },
    set(tokenHash, principal, now) {
      if (entries.size >= MAX_ENTRIES) entries.clear();
      const expires = principal.kind === 'token' && principal.expiresAt !== null ? Date.parse(principal.expiresAt) : Infinity;
      entries.set(tokenHash, { principal, until: Math.min(now + TTL_MS, expires) });
    },
    clear: () => entries.clear(),
  };
}
