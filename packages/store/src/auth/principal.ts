// Who a request acts for, as resolved by the auth plugin. The rate limiter keys on it too.
import type { FastifyRequest } from 'fastify';
import type { AppKind } from './schema.ts';
import type { Scope } from './scopes.ts';

export type Principal =
  | {
      kind: 'token';
      storeId: number;
      /** The public App ID: unique across stores, so counters keyed on it never collide in a shared Redis. */
      appId: string;
      appKind: AppKind;
      tokenId: number;
      scopes: Scope[];
      /** Null for a non-expiring token. */
      expiresAt: string | null;
    }
  | { kind: 'session'; storeId: number; adminUserId: number; scopes: Scope[] };

/**
 * Fields kept encrypted at rest go only to an expiring (OAuth) token granted `decrypt`:
 * never to a non-expiring token, and not to a browser session.
 */
export function mayDecrypt(principal: Principal | undefined): boolean {
  return principal?.kind === 'token' && principal.expiresAt !== null && principal.scopes.includes('decrypt');
}

/** Which version of an answer the caller gets: with encrypted fields revealed, or without them. */
export function responseVariant(request: FastifyRequest): string {
  return mayDecrypt(request.principal) ? 'decrypted' : 'plain';
}
