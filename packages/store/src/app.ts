// The store API composed from its plugins: auth and the admin console come before the limits, the cache and the resources.
import { randomBytes } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { AuthTables } from './auth/schema.ts';
import { responseVariant } from './auth/principal.ts';
import { registerStoreAuth } from './auth/store-auth.ts';
import { fieldCipher } from './auth/field-cipher.ts';
import { cartRules } from './carts/cart-rules.ts';
import { cartRoutes } from './carts/cart-routes.ts';
import { consolePlugin } from './console/console-plugin.ts';
import type { StoreDatabase } from './db/schema.ts';
import { apiDocs } from './api-docs/api-docs.ts';
import { favicon } from './http/favicon.ts';
import { frontDoor } from './http/front-door.ts';
import { httpCaching, tagsOf } from './cache/http-caching.ts';
import type { ResponseCache } from './cache/response-cache.ts';
import { failedAuthGate } from './limits/failed-auth.ts';
import { rateLimit, type RateLimitOptions } from './limits/rate-limit.ts';
import { clientErrorHandler, errorFormat, frameworkErrors } from './http/error-format.ts';
import { BODY_VALIDATION } from './http/body-validation.ts';
import { jsonBodies } from './http/json-body.ts';
import { noNulText } from './http/no-nul-text.ts';
import { unreadBodies } from './http/unread-bodies.ts';
import { httpsOnly } from './http/https-only.ts';
import { apiVersion } from './http/api-version.ts';
import { allowedHosts, type HostRules } from './http/allowed-hosts.ts';
import { idempotency } from './idempotency/idempotency-plugin.ts';
import { withoutJsonSuffix } from './http/json-suffix.ts';
import type { SandboxClock } from './db/sandbox-clock.ts';
import { sandboxRoutes } from './sandbox/sandbox-routes.ts';
import { lazyValidators } from './http/lazy-validation.ts';
import { resources } from './model/registry.ts';
import { bulkRoutes, type BulkSettings } from './bulk/bulk-routes.ts';
import { expandedGroups } from './resources/expand.ts';
import { resourceRoutes } from './resources/routes.ts';
import { importManyRoute } from './resources/import-many.ts';
import { recordWrites } from './resources/record-writes.ts';
import { inventoryRoutes } from './resources/inventory-routes.ts';
import { signingRoutes } from './webhooks/signing-routes.ts';
import { eventLogRoutes } from './webhooks/event-log-routes.ts';
import { signingKeys } from './webhooks/standard-signature.ts';
import { targetPolicy } from './webhooks/target-policy.ts';
import { validateWrites } from './webhooks/validate-writes.ts';
import { webhooksPlugin, type WebhookSettings } from './webhooks/webhooks-plugin.ts';

export const API_PREFIX = '/api/v1';

export interface StoreAppOptions {
  database: StoreDatabase;
  /** The URL the database was opened from: webhook delivery opens its own connection, in a thread of its own. */
  databaseUrl?: string;
  /** TLS key and certificate; without them the app speaks plain HTTP and serves only what trusted proxies vouch came over TLS. */
  tls?: { key: string; cert: string };
  /** The public HTTPS port, for redirects (known only once listening). */
  httpsPort: () => number;
  /** Addresses or CIDRs whose X-Forwarded-Proto / X-Forwarded-Host are believed. */
  trustedProxies?: string[];
  /** The host names the store answers to besides its listen address (allowed-hosts.ts); listening on 127.0.0.1 with none by default. */
  hosts?: HostRules;
  /** Largest accepted request body, in bytes. */
  bodyLimit?: number;
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** The key app secrets, OAuth codes, CSRF tokens and encrypted fields derive from; a random one if not given (nothing then survives a restart). */
  authKey?: Uint8Array;
  /** Call counting; false turns it off (benchmark baselines only). */
  rateLimit: RateLimitOptions | false;
  /** The server-side response cache; false turns HTTP caching off (benchmark baselines only). */
  cache: ResponseCache | false;
  now?: () => number;
  /** A sandbox store's movable clock (`now` reads it); undefined outside sandbox mode. */
  sandbox?: SandboxClock;
  /** Where webhooks may go, and how this instance delivers them. */
  webhooks?: WebhookSettings;
  /** The store's data dir: bulk jobs' files go under its `bulk/`; undefined, a temporary folder. */
  dataDir?: string;
  /** Whether and how this instance runs bulk jobs. */
  bulk?: BulkSettings;
}

export async function buildStoreApp(options: StoreAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.tls === undefined ? {} : { https: { key: options.tls.key, cert: options.tls.cert } }),
    trustProxy: options.trustedProxies ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    rewriteUrl: (request) => withoutJsonSuffix(request.url ?? '/'),
    logger: { level: options.logLevel ?? 'warn' },
    logController: new LogController({ disableRequestLogging: true }),
    // Bodies are validated as sent, without type coercion, and every problem of a body is reported at once.
    ajv: { customOptions: BODY_VALIDATION },
    schemaController: { compilersFactory: { buildValidator: lazyValidators() } },
    return503OnClosing: true,
    clientErrorHandler,
    frameworkErrors,
  });
  // Only JSON bodies: text/plain would otherwise be parsed into a string.
  app.removeContentTypeParser('text/plain');
  jsonBodies(app);
  await app.register(errorFormat);
  await app.register(unreadBodies);
  await app.register(noNulText, { apiPrefix: API_PREFIX });
  await app.register(allowedHosts, options.hosts ?? { listenHost: '127.0.0.1', names: [] });
  await app.register(httpsOnly, { httpsPort: options.httpsPort });
  // Before authentication: a request naming no version the store has is refused whoever sends it.
  await app.register(apiVersion, { apiPrefix: API_PREFIX, ...(options.now === undefined ? {} : { now: options.now }) });
  const authKey = options.authKey ?? randomBytes(32);
  const auth = await registerStoreAuth(app, {
    db: options.database.db as unknown as Kysely<AuthTables>,
    dialect: options.database.dialect,
    key: authKey,
    apiPrefix: API_PREFIX,
    resources,
    expandedGroups,
    ...(options.rateLimit === false ? {} : { failedAuth: failedAuthGate(options.rateLimit.counter, options.rateLimit.now) }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const webhookPolicy = targetPolicy(options.webhooks?.allowedNetworks);
  const webhookKeys = signingKeys(authKey);
  await app.register(consolePlugin, { ctx: auth, webhooks: { database: options.database, policy: webhookPolicy, keys: webhookKeys } });
  // Authentication's onRequest hook (above) sets request.principal, which rate limiting keys on,
  // and it runs before the cache answers anything.
  if (options.rateLimit !== false) await app.register(rateLimit, options.rateLimit);
  if (options.cache !== false)
    await app.register(httpCaching, {
      cache: options.cache,
      variant: responseVariant,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  await app.register(webhooksPlugin, {
    database: options.database,
    databaseUrl: options.databaseUrl,
    auth,
    policy: webhookPolicy,
    settings: options.webhooks ?? {},
    now: options.now,
    sandbox: options.sandbox !== undefined,
  });
  await app.register(idempotency, {
    db: options.database.db,
    apiPrefix: API_PREFIX,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  await app.register(apiDocs, { prefix: API_PREFIX });
  await app.register(frontDoor, { apiPrefix: API_PREFIX });
  await app.register(favicon);
  const cipher = fieldCipher(authKey);
  // Every write of a record, through any route or import, takes this path; Validate* subscribers are asked before the carting rules.
  const writes = recordWrites(options.database, {
    encrypt: (plain) => cipher.encrypt(plain),
    checks: [validateWrites(options.database, app.webhookReplies), cartRules(options.database)],
  });
  app.decorate('recordWrites', writes);
  // Before the resource routes, which leave the methods the carting routes serve to them.
  await app.register(cartRoutes, {
    prefix: API_PREFIX,
    database: options.database,
    encrypt: (plain) => cipher.encrypt(plain),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  await app.register(importManyRoute, { prefix: API_PREFIX, database: options.database, writes });
  await app.register(inventoryRoutes, { prefix: API_PREFIX, database: options.database });
  await app.register(sandboxRoutes, {
    prefix: API_PREFIX,
    clock: options.sandbox,
    database: options.database,
    eventLogDays: options.webhooks?.eventLogDays,
  });
  await app.register(signingRoutes, { prefix: API_PREFIX, database: options.database, keys: webhookKeys });
  await app.register(eventLogRoutes, { prefix: API_PREFIX, database: options.database, authKey });
  const cache = options.cache;
  await app.register(bulkRoutes, {
    prefix: API_PREFIX,
    database: options.database,
    authKey,
    now: options.now ?? Date.now,
    dataDir: options.dataDir,
    settings: options.bulk ?? {},
    writes,
    // Imports write outside any request, so what the cache holds of the resource is dropped here.
    written: cache === false ? () => undefined : (resource) => cache.invalidate(tagsOf(resource)),
  });
  await app.register(resourceRoutes, { prefix: API_PREFIX, database: options.database, authKey, writes });
  return app;
}
