// Runs inside the lab's namespaces as PID 1: puts the addresses up, starts BIND, the Knot DNS, NSD and
// PowerDNS servers and our responder, says "ready", serves requests from the host, and stops
// everything when the host lets go of it (as PID 1 its exit takes every process in the namespace with it).
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { WorldPlan } from '../world/world-plan.ts';
import { addLoopbackAddresses } from './loopback-addresses.ts';
import { startNamed } from './named-process.ts';
import { bridge } from './socket-bridge.ts';
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
  const answerFrom = plan.servers.flatMap((s) => (s.behaviour.answerFrom === undefined ? [] : [s.behaviour.answerFrom]));
  await timed('addresses', () => addLoopbackAddresses([...plan.servers.flatMap((s) => s.addresses), ...answerFrom]));
  const responderServers = plan.servers.filter((s) => s.engine === 'responder');
  await Promise.all([
    plan.servers.some((s) => s.implementation === 'bind') &&
      timed('named', async () => {
        const named = await startNamed(plan.namedConfPath, join(plan.dir, 'named.log'));
        stoppers.push(() => named.stop());
      }),
    plan.processes.length > 0 &&
      timed('others', async () => {
        const { startServerProcess } = await import('./server-process.ts');
        const started = await Promise.allSettled(plan.processes.map((spec) => startServerProcess(spec)));
        for (const outcome of started) if (outcome.status === 'fulfilled') stoppers.push(() => outcome.value.stop());
        const failed = started.find((outcome) => outcome.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
      }),
    plan.silentDotAddresses !== undefined &&
      timed('silent', async () => {
        const { startSilentPorts } = await import('./silent-ports.ts');
        stoppers.push(await startSilentPorts(plan.silentDotAddresses!));
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
  if (request.op === 'forward') {
    try {
      await reachable(request.host, request.port);
      const server = await bridge({ path: request.socketPath }, { host: request.host, port: request.port });
      stoppers.push(() => new Promise((done) => server.close(() => done())));
      send({ id: request.id, result: { ok: true } });
    } catch (error) {
      send({ id: request.id, result: { ok: false, error: (error as Error).message } });
    }
    return;
  }
  const { runQuery } = await import('./run-query.ts');
  send({ id: request.id, result: await runQuery(request) });
}

/** Forwarding starts only to something that listens, so a wrong port fails at once. */
function reachable(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', (error) => reject(new Error(`nothing answers on ${host}:${port} inside the lab (${error.message})`)));
  });
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
