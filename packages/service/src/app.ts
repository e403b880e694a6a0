// Composition: configuration, database, methods and the HTTP endpoint of the RPC API.
import { migrateToLatest, openDatabase } from '@app/database';
import type { FastifyInstance } from 'fastify';
import { loadProfiles } from './config/profiles.ts';
import type { ServiceConfig } from './config/service-config.ts';
import { migrations, PRODUCT } from './db/migrations.ts';
import type { ServiceSchema } from './db/tables.ts';
import { loadEngine } from './engine-adapter.ts';
import { batchMethods } from './methods/batches.ts';
import { evidenceMethods } from './methods/evidence.ts';
import type { ServiceContext } from './methods/context.ts';
import { infoMethods } from './methods/info.ts';
import { lookupMethods } from './methods/lookups.ts';
import { testMethods } from './methods/tests.ts';
import { watchMethods } from './methods/watches.ts';
import { dnssecTimelineMethods } from './methods/dnssec-timeline.ts';
import { createDispatcher } from './rpc/envelope.ts';
import { buildHttpEndpoint } from './rpc/http-endpoint.ts';
import type { MethodDefinition, MethodTable } from './rpc/method.ts';
import { languageTags } from './validation/language-tags.ts';
import { dnsLibraryVersion, serviceVersion } from './versions.ts';
import { registerOperationalRoutes } from './metrics/operational-routes.ts';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics.ts';
import { registerWebInterface } from './web/serve.ts';

export interface RpcService {
  app: FastifyInstance;
  context: ServiceContext;
  methods: MethodTable;
  metrics: ServiceMetrics;
  close(): Promise<void>;
}

export async function createRpcService(config: ServiceConfig, options: { logger?: boolean } = {}): Promise<RpcService> {
  const profiles = loadProfiles(config.profiles);
  const engine = loadEngine(config);
  const database = await openDatabase<ServiceSchema>(config.databaseUrl);
  try {
    await migrateToLatest(database, PRODUCT, migrations);
  } catch (error) {
    await database.close();
    throw error;
  }

  const context: ServiceContext = {
    database,
    config,
    profiles,
    languageTags: languageTags(config.locales),
    engine,
    versions: { dns: dnsLibraryVersion(), backend: serviceVersion() },
  };
  const methods = new Map<string, MethodDefinition>(
    Object.entries({
      ...infoMethods(context),
      ...lookupMethods(context),
      ...testMethods(context),
      ...batchMethods(context),
      ...evidenceMethods(context),
      ...watchMethods(context),
      ...dnssecTimelineMethods(context),
    }),
  );
  const metrics = createServiceMetrics(database.db, (name) => methods.has(name), config.queues);
  const app = buildHttpEndpoint({
    dispatcher: createDispatcher({
      methods,
      languageTags: context.languageTags,
      logError: (reference, error) => console.error(`rpc error ${reference}:`, error),
      onCall: (method, outcome) => metrics.rpcCall(method, outcome),
    }),
    bodyLimit: config.bodyLimitBytes,
    hosts: { listenHost: config.listen.host, names: config.allowedHosts },
    logger: options.logger ?? false,
  });
  registerOperationalRoutes(app, database.db, metrics);
  registerWebInterface(app);
  return {
    app,
    context,
    methods,
    metrics,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
