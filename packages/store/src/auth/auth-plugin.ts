// Resolves who calls the API (X-AC-Auth-Token, or a console session for reads) into
// `request.principal`, and holds each route to its resource's scope group.
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../model/api-error.ts';
import type { FailedAuthGate } from '../limits/failed-auth.ts';
import { revealOrDrop, type EncryptedFields } from '../model/encrypted-fields.ts';
import { routeConfigOf } from '../model/route-config.ts';
import type { AuthContext } from './context.ts';
import { fieldCipher } from './field-cipher.ts';
import { mayDecrypt, type Principal } from './principal.ts';
import { allows, readScopesFor, requiredScope, type ResourceGroup } from './scopes.ts';
import { SESSION_COOKIE, readCookie } from './cookies.ts';
import { findSession } from './sessions.ts';
import { resolveToken, type TokenResolution } from './tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

export interface AuthPluginOptions {
  ctx: AuthContext;
  /** Routes under this prefix need a principal. */
  apiPrefix?: string;
  /** Fields kept encrypted at rest (the write path encrypts them): in answers decrypted for principals that may, left out for the rest. */
  encrypted?: EncryptedFields;
  /** Limits failed authentication per client address (off when rate limiting is). */
  failedAuth?: FailedAuthGate;
  /** The collections a request expands and their scope groups, so `expand=` cannot read past the principal's scopes. */
  expandedGroups?: (request: FastifyRequest) => readonly { name: string; group: ResourceGroup }[];
}

const READ_METHODS = new Set(['GET', 'HEAD']);

function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-ac-auth-token'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && value.trim() !== '') return value.trim();
  // Modern OAuth clients send the same token as a bearer token.
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  return bearer;
}

const tokenProblemText = {
  unknown: 'The X-AC-Auth-Token is not valid',
  expired: 'The X-AC-Auth-Token has expired; refresh it or sign in again',
  revoked: 'The X-AC-Auth-Token has been revoked',
} as const;

/** The caller; at once, without a promise, when its token's principal is cached. */
function authenticate(options: AuthPluginOptions, request: FastifyRequest): Principal | Promise<Principal> {
  const token = tokenOf(request);
  if (token === undefined) return authenticateSession(options, request);
  const gate = options.failedAuth;
  const principalOf = (found: TokenResolution): Principal => {
    if (!('problem' in found)) return found.principal;
    gate?.failed(request.ip);
    throw new ApiError(401, tokenProblemText[found.problem]);
  };
  const found = resolveToken(
    options.ctx,
    token,
    gate === undefined
      ? undefined
      : () => {
          const refusal = gate.refusal(request.ip);
          if (refusal !== undefined) throw refusal;
        },
  );
  return found instanceof Promise ? found.then(principalOf) : principalOf(found);
}

async function authenticateSession(options: AuthPluginOptions, request: FastifyRequest): Promise<Principal> {
  const cookie = readCookie(request, SESSION_COOKIE);
  if (cookie !== undefined && READ_METHODS.has(request.method)) {
    const session = await findSession(options.ctx, cookie);
    if (session !== undefined) {
      return {
        kind: 'session',
        storeId: session.admin.storeId,
        adminUserId: session.admin.id,
        scopes: readScopesFor(session.admin.access),
      };
    }
  }
  if (cookie !== undefined && !READ_METHODS.has(request.method)) {
    throw new ApiError(401, 'A signed-in browser may only read; send X-AC-Auth-Token for anything else');
  }
  throw new ApiError(401, 'Send an access token in the X-AC-Auth-Token header');
}

function authorize(principal: Principal, request: FastifyRequest, expandedGroups: AuthPluginOptions['expandedGroups']): void {
  const config = routeConfigOf(request);
  const group: ResourceGroup | undefined = config.scope;
  if (group === undefined) return;
  const write = config.access === 'write' || !READ_METHODS.has(request.method);
  const refuse = (scope: string, why = 'this request needs') => {
    const who = principal.kind === 'session' ? 'Your admin account does not have' : 'This token does not have';
    return new ApiError(403, `${who} the ${scope} scope ${why}`);
  };
  if (!allows(principal.scopes, group, write)) throw refuse(requiredScope(group, write));
  for (const { name, group: nested } of expandedGroups?.(request) ?? []) {
    if (!allows(principal.scopes, nested, false)) throw refuse(requiredScope(nested, false), `that expand=${name} needs`);
  }
}

export const authPlugin = fp(
  async (app: FastifyInstance, options: AuthPluginOptions) => {
    if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
    const prefix = options.apiPrefix ?? '/api/v1';
    const encrypted = options.encrypted?.names ?? new Set<string>();
    app.decorateRequest('principal', undefined);
    const admit = (request: FastifyRequest, principal: Principal) => {
      request.principal = principal;
      authorize(principal, request, options.expandedGroups);
    };
    // Callback-style, so a caller whose principal is cached passes without waiting on a promise.
    app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      const path = request.url.split('?')[0] ?? '';
      // Routes that declare themselves public (the API's own documentation) need nobody.
      if ((path !== prefix && !path.startsWith(`${prefix}/`)) || routeConfigOf(request).public === true) {
        done();
        return;
      }
      let failure: Error | undefined;
      try {
        const principal = authenticate(options, request);
        if (principal instanceof Promise) {
          principal
            .then((found) => admit(request, found))
            .then(
              () => done(),
              (error: unknown) => done(error as Error),
            );
          return;
        }
        admit(request, principal);
      } catch (error) {
        failure = error as Error;
      }
      done(failure);
    });
    app.addHook(
      'onSend',
      (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
        // The answer depends on who asked; shared caches must not reuse it for someone else.
        if (request.principal !== undefined) void reply.header('cache-control', privateCacheControl(reply.getHeader('cache-control')));
        done(null, payload);
      },
    );
    if (encrypted.size > 0) {
      const cipher = fieldCipher(options.ctx.key);
      const skip = (request: FastifyRequest) => {
        const resource = routeConfigOf(request).resource;
        return request.principal === undefined || (resource !== undefined && options.encrypted?.mayCarry(resource) === false);
      };
      const shown = (request: FastifyRequest, payload: unknown): unknown =>
        skip(request)
          ? payload
          : revealOrDrop(payload, encrypted, mayDecrypt(request.principal) ? (stored) => cipher.decrypt(stored) ?? stored : undefined);
      // Answers kept by a write's transaction (http/answer-in-write.ts) are sent as text, so they are shown the same way first.
      app.decorate('shownAnswer', shown);
      app.addHook(
        'preSerialization',
        (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
          done(null, shown(request, payload));
        },
      );
    }
  },
  { name: 'store-auth' },
);

function privateCacheControl(current: unknown): string {
  const text = typeof current === 'string' ? current : '';
  if (text === '') return 'private';
  return /\b(private|no-store)\b/i.test(text) ? text : text.replace(/\bpublic\b\s*,?\s*/i, '').replace(/^\s*,?\s*/, 'private, ');
}
