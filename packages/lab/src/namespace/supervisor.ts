// Runs inside the lab's namespaces as PID 1: puts the addresses up, starts BIND and our responder,
// says "ready", serves requests from the host, and stops everything when the host lets go of it
// (as PID 1 its exit takes every process in the namespace with it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorldPlan } from '../world/world-plan.ts';
import { addLoopbackAddresses } from './loopback-addresses.ts';
import { startNamed } from './named-process.ts';
import type { SupervisorMessage, SupervisorRequest } from './supervisor-protocol.ts';

const send = (message: SupervisorMessage): void => {
  process.send?.(message);
};

const plan = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as WorldPlan;
const stoppers: (() => Promise<void>)[] = [];
const startup: Record<string, number> = {};

async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  startup[step] = Math.round(performance.now() - started);
  return result;
}

async function start(): Promise<void> {
  await timed('addresses', () => addLoopbackAddresses(plan.servers.flatMap((s) => s.addresses)));
  const responderServers = plan.servers.filter((s) => s.engine === 'responder');
  await Promise.all([
    timed('named', async () => {
      const named = await startNamed(plan.namedConfPath, join(plan.dir, 'named.log'));
      stoppers.push(() => named.stop());
    }),
    responderServers.length > 0 &&
      timed('responder', async () => {
        const { startResponders } = await import('../responder/start-responders.ts');
        const responders = await startResponders(responderServers, plan);
        stoppers.push(() => responders.stop());
      }),
  ]);
}

async function handle(request: SupervisorRequest): Promise<void> {
  const { runQuery } = await import('./run-query.ts');
  send({ id: request.id, result: await runQuery(request) });
}

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.allSettled(stoppers.map((stop) => stop()));
  process.exit(code);
}

process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
process.on('disconnect', () => void shutdown(0));
process.on('message', (request: SupervisorRequest) => void handle(request));

try {
  await start();
  send({ event: 'ready', startup });
} catch (error) {
  send({ event: 'failed', message: (error as Error).message });
  await shutdown(1);
}
