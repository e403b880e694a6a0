// Opens the database, brings the schema up, makes the store on first start, and serves HTTPS
// (plus, if asked, a plain-HTTP port that only redirects).
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '@app/database';
import type { FastifyInstance } from 'fastify';
import { buildStoreApp, API_PREFIX } from './app.ts';
import { loadAuthKey } from './auth/auth-key.ts';
import { ResponseCache } from './cache/response-cache.ts';
import { shareInvalidations, type SharedInvalidation } from './cache/shared-invalidation.ts';
import { ensureStore, type FirstStart } from './db/first-start.ts';
import { migrateStore } from './db/migrations.ts';
import type { StoreSchema } from './db/schema.ts';
import { followPlan, type FollowedPlan, type Plan } from './limits/plans.ts';
import { followSandboxClock, type SandboxClock } from './db/sandbox-clock.ts';
import { setDatabaseClock } from './db/database-clock.ts';
import { redisWindowCounter } from './limits/redis-window-counter.ts';
import { memoryWindowCounter, type WindowCounter } from './limits/window-counter.ts';
import { createRedirectServer } from './http/redirect-server.ts';
import { hostNames } from './http/allowed-hosts.ts';
import { loadOrCreateCertificate } from './http/tls.ts';
import type { WebhookSettings } from './webhooks/webhooks-plugin.ts';
import type { BulkSettings } from './bulk/bulk-routes.ts';

export interface ServeOptions {
  databaseUrl: string;
  dataDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** A plain-HTTP port that redirects to HTTPS; undefined opens none. */
  httpPort?: number;
  certFile?: string;
  keyFile?: string;
  trustedProxies?: string[];
  /** Host names the store answers to besides `host` (and, on loopback, localhost): those clients and proxies address it by. */
  allowedHosts?: string[];
  plan?: Plan;
  /** Redis for rate-limit counters shared by every instance; without it, counting is per instance. */
  redisUrl?: string;
  /** Benchmark baselines only: serve without rate limiting and/or HTTP caching. */
  without?: { rateLimit?: boolean; cache?: boolean };
  /** The time source of rate-limit windows and caching (tests move it by hand). */
  clock?: () => number;
  /** Sandbox mode: the store's clock can be moved forward (POST /sandbox/clock, `store sandbox clock`). */
  sandbox?: boolean;
  /** Largest accepted request body, in bytes (default 1 MiB). */
  bodyLimit?: number;
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** Where webhooks may go (loopback and private ranges only when allowed), extra CAs, retry schedule. */
  webhooks?: WebhookSettings;
  /** Whether and how this instance runs bulk jobs. */
  bulk?: BulkSettings;
}

export interface RunningStore {
  app: FastifyInstance;
  /** e.g. https://127.0.0.1:8443/api/v1 */
  apiUrl: string;
  port: number;
  httpPort?: number;
  /** The served certificate (PEM), for clients that must trust a self-signed one. */
  certificate: string;
  firstStart: FirstStart | undefined;
  close(): Promise<void>;
}

const consoleLog = { warn: (message: string) => console.warn(message), info: (message: string) => console.log(message) };

function windowCounter(redisUrl: string | undefined): WindowCounter {
  if (redisUrl === undefined) return memoryWindowCounter();
  return redisWindowCounter(redisUrl, consoleLog);
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function serveStore(options: ServeOptions): Promise<RunningStore> {
  const database = await openDatabase<StoreSchema>(options.databaseUrl);
  let redirect: Server | undefined;
  let plan: FollowedPlan | undefined;
  let sharing: SharedInvalidation | undefined;
  let built: FastifyInstance | undefined;
  let sandbox: SandboxClock | undefined;
  try {
    await migrateStore(database);
    const firstStart = await ensureStore(database, { ...(options.plan === undefined ? {} : { plan: options.plan }) });
    const tls = await loadOrCreateCertificate(options);
    const followed = await followPlan(database.db);
    plan = followed;
    sandbox = options.sandbox === true ? await followSandboxClock(database.db, options.clock ?? Date.now) : undefined;
    const clock = sandbox?.now ?? options.clock ?? Date.now;
    if (sandbox !== undefined) setDatabaseClock(database, sandbox.now);
    const responseCache = options.without?.cache === true ? undefined : new ResponseCache({ now: clock });
    sharing =
      responseCache === undefined || options.redisUrl === undefined
        ? undefined
        : shareInvalidations(responseCache, options.redisUrl, consoleLog);
    // Port 0 is only resolved by listening, so redirects read the port lazily.
    const ports = { https: options.port };
    const hosts = {
      listenHost: options.host,
      names: hostNames(options.allowedHosts ?? [], 'allowed host (--allowed-host, STORE_ALLOWED_HOSTS)'),
    };
    const app = (built = await buildStoreApp({
      database,
      databaseUrl: options.databaseUrl,
      tls,
      httpsPort: () => ports.https,
      hosts,
      authKey: loadAuthKey({ file: join(options.dataDir, 'auth.key') }),
      rateLimit:
        options.without?.rateLimit === true ? false : { counter: windowCounter(options.redisUrl), plan: followed.current, now: clock },
      cache: responseCache ?? false,
      now: clock,
      ...(sandbox === undefined ? {} : { sandbox }),
      ...(options.trustedProxies === undefined ? {} : { trustedProxies: options.trustedProxies }),
      ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
      ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
      ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }),
      dataDir: options.dataDir,
      ...(options.bulk === undefined ? {} : { bulk: options.bulk }),
    }));
    await app.listen({ host: options.host, port: options.port });
    ports.https = (app.server.address() as AddressInfo).port;
    let httpPort: number | undefined;
    if (options.httpPort !== undefined) {
      const server = createRedirectServer(ports.https, hosts);
      redirect = server;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.httpPort, options.host, () => resolve());
      });
      httpPort = (server.address() as AddressInfo).port;
    }
    return {
      app,
      apiUrl: `https://${urlHost(options.host)}:${ports.https}${API_PREFIX}`,
      port: ports.https,
      ...(httpPort === undefined ? {} : { httpPort }),
      certificate: tls.cert,
      firstStart,
      close: async () => {
        plan?.stop();
        sandbox?.stop();
        if (redirect !== undefined) await new Promise((resolve) => redirect?.close(resolve));
        await app.close();
        await sharing?.close();
        await database.close();
      },
    };
  } catch (error) {
    plan?.stop();
    sandbox?.stop();
    redirect?.close();
    // The app's background work (the webhook worker) stops before the database it reads goes.
    await built?.close();
    await sharing?.close();
    await database.close();
    throw error;
  }
}
