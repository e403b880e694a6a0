// Everything auth adds to the store app: the principal and scope checks on the API, the token
// endpoints, and the admin console with its OAuth grant page.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { consolePlugin } from '../console/console-plugin.ts';
import { encryptedFieldNames, type ResourceDeclaration } from '../resources/declaration.ts';
import { authPlugin } from './auth-plugin.ts';
import { authContext, type AuthContext } from './context.ts';
import { oauthTokenRoutes } from './oauth-token-routes.ts';
import type { AuthTables } from './schema.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The auth records and policies, for commands and tests that act beside the HTTP routes. */
    storeAuth: AuthContext;
  }
}

export interface StoreAuthOptions {
  db: Kysely<AuthTables>;
  key: Uint8Array;
  apiPrefix: string;
  resources: readonly ResourceDeclaration[];
  /** Tests move the clock; the server uses Date.now. */
  now?: () => number;
}

export async function registerStoreAuth(app: FastifyInstance, options: StoreAuthOptions): Promise<AuthContext> {
  const ctx = authContext({ db: options.db, key: options.key, ...(options.now === undefined ? {} : { now: options.now }) });
  app.decorate('storeAuth', ctx);
  const byName = new Map(options.resources.map((r) => [r.name, r]));
  const encryptedFields = encryptedFieldNames(options.resources);
  const hasEncrypted = (name: string) => Object.values(byName.get(name)?.fields ?? {}).some((f) => f.encrypted === true);
  // A route's answer holds its resource, its nested collections (nested routes) and theirs (expand= on those).
  const reachable = (name: string, depth: number): boolean =>
    hasEncrypted(name) || (depth > 0 && Object.values(byName.get(name)?.nested ?? {}).some((n) => reachable(n.resource, depth - 1)));
  const carriers = new Set(options.resources.filter((r) => reachable(r.name, 2)).map((r) => r.name));
  await app.register(authPlugin, {
    ctx,
    apiPrefix: options.apiPrefix,
    encryptedFields,
    mayCarryEncrypted: (resource) => carriers.has(resource),
    nestedGroup: (resource, nested) => {
      const child = byName.get(resource)?.nested[nested]?.resource;
      return child === undefined ? undefined : byName.get(child)?.scope;
    },
  });
  await app.register(oauthTokenRoutes, { ctx });
  await app.register(consolePlugin, { ctx });
  return ctx;
}
