export { createRpcService, type RpcService } from './app.ts';
export { loadConfig, ConfigError, type ServiceConfig } from './config/service-config.ts';
export { claimNextTest, reportProgress, finishTest, overallResult, type ClaimedTest } from './db/queue.ts';
export type { TestParams } from './db/test-params.ts';
export { Agent, type AgentOptions, type RunTests } from './agent/agent.ts';
export { migrations, PRODUCT } from './db/migrations.ts';
export { batchProgressAtRevision, batchRevision } from './db/batches.ts';
export type { ServiceSchema } from './db/tables.ts';
export { newTestRow } from './db/tests.ts';
