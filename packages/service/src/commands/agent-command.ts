// `dns-service agent`: an agent process on its own, which waits for its database when it is away.
import { DatabaseUnreachableError, migrateToLatest, openDatabase, type Database } from '@app/database';
import { setTimeout as delay } from 'node:timers/promises';
import { loadProfiles } from '../config/profiles.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import { migrations, PRODUCT } from '../db/migrations.ts';
import type { ServiceSchema } from '../db/tables.ts';
import Fastify from 'fastify';
import { registerOperationalRoutes } from '../metrics/operational-routes.ts';
import { createServiceMetrics } from '../metrics/service-metrics.ts';
import { registerHostGuard } from '../rpc/allowed-hosts.ts';
import { Agent, type AgentOptions } from '../agent/agent.ts';
import { redisSharedAnswers } from '../agent/redis-shared-answers.ts';
import { Backoff } from '../agent/backoff.ts';
import { heapAdvice, heapLimitMb } from '../agent/heap-limit.ts';
import { loadEngine } from '../engine-adapter.ts';
import { Watcher } from '../watch/watcher.ts';

/** Runs until `stopped` settles, then lets running tests finish for up to `graceMs`. */
export async function runAgentProcess(
  config: ServiceConfig,
  graceMs: number,
  stopped: Promise<void>,
  options: Pick<AgentOptions, 'runTests' | 'leaseSeconds'> & { metricsListen?: { host: string; port: number } } = {},
): Promise<void> {
  const profiles = loadProfiles(config.profiles);
  const database = await openWhenAvailable(config.databaseUrl, stopped);
  if (database === undefined) return;
  try {
    await migrateToLatest(database, PRODUCT, migrations);
    const { metricsListen, ...agentOptions } = options;
    // With --metrics, this process's own counters (its tests, its DNS queries) are served over HTTP.
    const metrics = metricsListen === undefined ? undefined : createServiceMetrics(database.db, () => false, config.queues);
    const sharedAnswers =
      config.redisUrl === undefined
        ? undefined
        : redisSharedAnswers(config.redisUrl, (line) => console.error(`dns-service agent: ${line}`));
    const agent = new Agent({
      ...agentOptions,
      database,
      config,
      profiles,
      ...(metrics && { metrics: metrics.agent }),
      ...(sharedAnswers && { sharedAnswers }),
    });
    agent.start();
    const watcher = new Watcher({ database, engine: loadEngine(config), settings: config.watch });
    watcher.start();
    const heapMb = heapLimitMb();
    console.log(
      `dns-service: agent ${agent.name} on queue ${config.lockOnQueue}, up to ${config.frontendProcesses + config.batchProcesses} tests at once (${database.description})${sharedAnswers ? ', sharing answers through Redis' : ''}, heap at most ${heapMb} MB`,
    );
    const advice = heapAdvice(heapMb);
    if (advice !== undefined) console.error(advice);
    const server = metrics === undefined ? undefined : Fastify({ logger: false });
    if (server !== undefined && metrics !== undefined && metricsListen !== undefined) {
      registerHostGuard(server, { listenHost: metricsListen.host, names: config.allowedHosts });
      registerOperationalRoutes(server, database.db, metrics);
      console.log(`dns-service: agent metrics on ${await server.listen(metricsListen)}/metrics`);
    }
    await stopped;
    await server?.close();
    await agent.stop(graceMs);
    await watcher.stop();
    await sharedAnswers?.close();
  } finally {
    await database.close();
  }
}

async function openWhenAvailable(url: string, stopped: Promise<void>): Promise<Database<ServiceSchema> | undefined> {
  const backoff = new Backoff(500, 30_000);
  const stop = new AbortController();
  void stopped.then(() => stop.abort());
  while (!stop.signal.aborted) {
    try {
      return await openDatabase<ServiceSchema>(url);
    } catch (error) {
      if (!(error instanceof DatabaseUnreachableError)) throw error;
      const wait = backoff.next();
      console.error(`dns-service: ${error.message}; trying again in ${wait} ms`);
      await delay(wait, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  }
  return undefined;
}
