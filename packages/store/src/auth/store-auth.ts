// What auth adds to the store app: the principal and scope checks on the API, and the token endpoints.
import type { FastifyInstance } from 'fastify';
import type { DialectName } from '@app/database';
import type { Kysely } from 'kysely';
import type { FailedAuthGate } from '../limits/failed-auth.ts';
import { encryptedFields } from '../model/encrypted-fields.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { authPlugin, type AuthPluginOptions } from './auth-plugin.ts';
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
  dialect: DialectName;
  key: Uint8Array;
  apiPrefix: string;
  resources: readonly ResourceDeclaration[];
  /** The collections a read's `expand=` names, each with the scope group it needs (the resource routes parse it). */
  expandedGroups: NonNullable<AuthPluginOptions['expandedGroups']>;
  /** Limits failed authentication per client address; none when calls are not counted. */
  failedAuth?: FailedAuthGate;
  /** Tests move the clock; the server uses Date.now. */
  now?: () => number;
}

export async function registerStoreAuth(app: FastifyInstance, options: StoreAuthOptions): Promise<AuthContext> {
  const ctx = authContext({
    db: options.db,
    dialect: options.dialect,
    key: options.key,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  app.decorate('storeAuth', ctx);
  await app.register(authPlugin, {
    ctx,
    apiPrefix: options.apiPrefix,
    encrypted: encryptedFields(options.resources),
    expandedGroups: options.expandedGroups,
    ...(options.failedAuth === undefined ? {} : { failedAuth: options.failedAuth }),
  });
  await app.register(oauthTokenRoutes, { ctx });
  return ctx;
}
