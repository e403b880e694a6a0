// `dns-service serve [--config FILE]`: the RPC API (with `--with-agent`, an agent in the same
// process, as `npm start` runs it); `dns-service agent [--config FILE]`: a test agent on its own.
import { parseArgs } from 'node:util';
import { Agent } from '../agent/agent.ts';
import { runAgentProcess } from './agent-command.ts';
import { createRpcService } from '../app.ts';
import { ConfigError, loadConfig, type ServiceConfig } from '../config/service-config.ts';
import { Watcher } from '../watch/watcher.ts';
import { watchCommand, watchUsage } from './watch-command.ts';

import { migrateToLatest, openDatabase } from '@app/database';
import { migrations, PRODUCT } from '../db/migrations.ts';
import { parseAge, purgeTests } from '../db/purge.ts';
import type { ServiceSchema } from '../db/tables.ts';

const usage = `Usage: dns-service serve [--config FILE] [--listen HOST:PORT] [--with-agent] [--grace SECONDS]
       dns-service agent [--config FILE] [--grace SECONDS] [--metrics HOST:PORT]
       dns-service purge --older-than AGE [--keep-last N] [--config FILE]
       ${watchUsage}
--grace: how long running tests may finish after SIGTERM (default 10 s); the rest go back to the queue.
--metrics: serve the agent's /metrics, /healthz and /readyz on HOST:PORT.
purge: remove finished tests older than AGE (180d, 12h, 4w) with their results, a few hundred per
transaction while the service runs; --keep-last N spares each domain's newest N.`;

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'watch') return watchCommand(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        listen: { type: 'string' },
        help: { type: 'boolean' },
        'with-agent': { type: 'boolean' },
        grace: { type: 'string' },
        metrics: { type: 'string' },
        'older-than': { type: 'string' },
        'keep-last': { type: 'string' },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  const [command] = parsed.positionals;
  const grace = Number(parsed.values.grace ?? '10');
  const metricsMatch = parsed.values.metrics === undefined ? undefined : /^\[?([^\]]*)\]?:(\d{1,5})$/.exec(parsed.values.metrics);
  const age = parsed.values['older-than'] === undefined ? undefined : parseAge(parsed.values['older-than']);
  const keepLast = Number(parsed.values['keep-last'] ?? '0');
  const purging = command === 'purge' && age !== undefined && Number.isSafeInteger(keepLast) && keepLast >= 0;
  if (command === 'purge' && !purging) {
    console.error(
      `dns-service purge needs --older-than AGE (a number and h, d or w, e.g. 180d) and, if given, --keep-last N (a whole number)\n${usage}`,
    );
    return 2;
  }
  if (
    parsed.values.help === true ||
    (command !== 'serve' && command !== 'agent' && !purging) ||
    !(grace >= 0) ||
    metricsMatch === null ||
    (metricsMatch !== undefined && command !== 'agent')
  ) {
    console.error(usage);
    return parsed.values.help === true ? 0 : 2;
  }
  let config;
  try {
    const env = parsed.values.listen === undefined ? process.env : { ...process.env, DNS_SERVICE_LISTEN: parsed.values.listen };
    config = loadConfig({ ...(parsed.values.config === undefined ? {} : { file: parsed.values.config }), env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  if (purging) return purge(config, age, keepLast);
  if (command === 'agent') {
    await runAgentProcess(
      config,
      grace * 1000,
      stopped,
      metricsMatch === undefined ? {} : { metricsListen: { host: metricsMatch[1] ?? '', port: Number(metricsMatch[2]) } },
    );
    return 0;
  }
  return serve(config, parsed.values['with-agent'] === true, grace * 1000, stopped);
}

async function serve(config: ServiceConfig, withAgent: boolean, graceMs: number, stopped: Promise<void>): Promise<number> {
  const service = await createRpcService(config);
  let address: string;
  try {
    address = await service.app.listen({ host: config.listen.host, port: config.listen.port });
  } catch (error) {
    await service.app.close();
    await service.close();
    console.error(`dns-service: ${listenFailure(error, config.listen)}`);
    return 1;
  }
  console.log(`dns-service: JSON-RPC API on ${address} (${service.context.database.description})`);
  console.log(`dns-service: web interface on ${address}/`);
  // One database handle for both: on SQLite, one connection serialises their writes.
  const agent = withAgent
    ? new Agent({ database: service.context.database, config, profiles: service.context.profiles, metrics: service.metrics.agent })
    : undefined;
  agent?.start();
  // Watches' due runs are enqueued, and their alerts sent, where tests are run.
  const watcher = withAgent
    ? new Watcher({ database: service.context.database, engine: service.context.engine, settings: config.watch })
    : undefined;
  watcher?.start();
  if (agent)
    console.log(
      `dns-service: agent ${agent.name} on queue ${config.lockOnQueue}, up to ${config.frontendProcesses + config.batchProcesses} tests at once`,
    );
  else
    console.log(
      `dns-service: no agent in this process: tests wait in queue ${config.lockOnQueue} until \`dns-service agent\` runs on the same database (or serve with --with-agent)`,
    );
  await stopped;
  await service.app.close();
  await agent?.stop(graceMs);
  await watcher?.stop();
  await service.close();
  return 0;
}

async function purge(config: ServiceConfig, ageMs: number, keepLast: number): Promise<number> {
  const database = await openDatabase<ServiceSchema>(config.databaseUrl);
  try {
    await migrateToLatest(database, PRODUCT, migrations);
    const before = new Date(Date.now() - ageMs);
    const outcome = await purgeTests(database.db, { before, keepLast });
    console.log(
      `dns-service: purged ${outcome.tests} finished tests created before ${before.toISOString()}${keepLast > 0 ? ` (each domain's newest ${keepLast} kept)` : ''} in ${outcome.transactions} transactions, and ${outcome.batches} emptied batches (${database.description})`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

/** Why listening failed, in one line: the usual causes need no stack trace. */
function listenFailure(error: unknown, listen: ServiceConfig['listen']): string {
  const where = `${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return `cannot listen on ${where}: another process already uses that port (choose another with --listen HOST:PORT or DNS_SERVICE_LISTEN)`;
  if (code === 'EACCES') return `cannot listen on ${where}: not allowed to use that port (ports below 1024 need privileges)`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: no network interface of this machine has that address`;
  return `cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`;
}
