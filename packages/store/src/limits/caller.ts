// Who a call is counted against. The auth plugin sets `request.principal`; until it has run (or when it
// refuses the call) the client address stands in.
import type { FastifyRequest } from 'fastify';
import { customAppLimit, INSTALLED_APPS_LIMIT, type Plan } from './plans.ts';

/** The fields of the auth plugin's principal that rate limiting needs. */
interface PrincipalFields {
  kind: 'token' | 'session';
  storeId: number;
  appId?: number | string;
  appKind?: 'custom' | 'installed';
  tokenId?: number | string;
}

export interface Caller {
  key: string;
  limit: number;
}

function principalOf(request: FastifyRequest): PrincipalFields | undefined {
  return (request as FastifyRequest & { principal?: PrincipalFields }).principal;
}

// A principal is cached and shared by a caller's requests, so its key is built (and hashed by Map) once.
const principalKeys = new WeakMap<PrincipalFields, string>();

function principalKey(principal: PrincipalFields): string {
  let key = principalKeys.get(principal);
  if (key === undefined) {
    const who =
      principal.appKind === 'installed'
        ? 'installed'
        : principal.appId !== undefined
          ? `app:${principal.appId}`
          : principal.tokenId !== undefined
            ? `token:${principal.tokenId}`
            : `${principal.kind}`;
    key = `store:${principal.storeId}:${who}`;
    principalKeys.set(principal, key);
  }
  return key;
}

export function callerOf(request: FastifyRequest, plan: Plan): Caller {
  const principal = principalOf(request);
  if (principal !== undefined) {
    return { key: principalKey(principal), limit: principal.appKind === 'installed' ? INSTALLED_APPS_LIMIT : customAppLimit(plan) };
  }
  // Not per token: made-up tokens would each get a counter of their own.
  return { key: `ip:${request.ip}`, limit: customAppLimit(plan) };
}
