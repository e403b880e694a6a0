// The store API composed from its plugins. Auth (issue 9) is one more plugin registered before the resources.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { StoreDatabase } from './db/schema.ts';
import { apiDocs } from './http/api-docs.ts';
import { httpCaching } from './cache/http-caching.ts';
import type { ResponseCache } from './cache/response-cache.ts';
import { rateLimit, type RateLimitOptions } from './limits/rate-limit.ts';
import { errorFormat } from './http/error-format.ts';
import { httpsOnly } from './http/https-only.ts';
import { withoutJsonSuffix } from './http/json-suffix.ts';
import { resourceRoutes } from './resources/routes.ts';

export const API_PREFIX = '/api/v1';

export interface StoreAppOptions {
  database: StoreDatabase;
  /** TLS key and certificate; without them the app speaks plain HTTP and serves only what trusted proxies vouch came over TLS. */
  tls?: { key: string; cert: string };
  /** The public HTTPS port, for redirects (known only once listening). */
  httpsPort: () => number;
  /** Addresses or CIDRs whose X-Forwarded-Proto / X-Forwarded-Host are believed. */
  trustedProxies?: string[];
  /** Largest accepted request body, in bytes. */
  bodyLimit?: number;
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** Call counting; false turns it off (benchmark baselines only). */
  rateLimit: RateLimitOptions | false;
  /** The server-side response cache; false turns HTTP caching off (benchmark baselines only). */
  cache: ResponseCache | false;
  now?: () => number;
}

export async function buildStoreApp(options: StoreAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.tls === undefined ? {} : { https: { key: options.tls.key, cert: options.tls.cert } }),
    trustProxy: options.trustedProxies ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    rewriteUrl: (request) => withoutJsonSuffix(request.url ?? '/'),
    logger: { level: options.logLevel ?? 'warn' },
    logController: new LogController({ disableRequestLogging: true }),
    // Bodies are validated as sent: no silent type coercion, no dropped unknown fields.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
    return503OnClosing: true,
  });
  // Only JSON bodies: text/plain would otherwise be parsed into a string.
  app.removeContentTypeParser('text/plain');
  await app.register(errorFormat);
  await app.register(httpsOnly, { httpsPort: options.httpsPort });
  // Authentication goes here: its onRequest hook sets request.principal, which rate limiting keys on,
  // and it must run before the cache answers anything.
  if (options.rateLimit !== false) await app.register(rateLimit, options.rateLimit);
  if (options.cache !== false) await app.register(httpCaching, { cache: options.cache, ...(options.now === undefined ? {} : { now: options.now }) });
  await app.register(apiDocs, { prefix: API_PREFIX });
  await app.register(resourceRoutes, { prefix: API_PREFIX, database: options.database });
  return app;
}
