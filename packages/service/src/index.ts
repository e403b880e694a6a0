export { createRpcService, type RpcService } from './app.ts';
export { loadConfig, ConfigError, type ServiceConfig } from './config/service-config.ts';
export { claimNextTest, reportProgress, finishTest, overallResult, type ClaimedTest, type ResultEntry, type Level } from './db/queue.ts';
export type { TestParams } from './db/test-params.ts';
