// The lab's supervisor: started as PID 1 of fresh network and PID namespaces (supervisor.ts), it starts
// the name servers, says when they are ready, and answers requests (a query sent from inside, a port
// forwarded out) over the IPC channel, each matched to its caller by id.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ForwardResult, SupervisorMessage, SupervisorRequest, WireQueryResult } from './supervisor-protocol.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface SupervisorLink {
  /** The namespace's first process as the host sees it. */
  pid: number;
  /** Milliseconds each step of the servers' start took. */
  startup: Record<string, number>;
  /** Whether the supervisor still runs and takes requests. */
  alive(): boolean;
  request<T extends WireQueryResult | ForwardResult>(message: DistributiveOmit<SupervisorRequest, 'id'>): Promise<T>;
  /** Ends the supervisor (and with it every process of the namespace). */
  stop(): Promise<void>;
}

const supervisorPath = resolve(import.meta.dirname, 'supervisor.ts');

/** Starts the supervisor on the built world in `dir`; rejects (with the supervisor gone) if it is not ready within `timeoutMs`. */
export async function startSupervisor(dir: string, timeoutMs: number): Promise<SupervisorLink> {
  // --kill-child: if unshare dies, the supervisor (PID 1 inside) dies, and with it the whole namespace.
  const supervisor = spawn(
    'unshare',
    ['--net', '--pid', '--fork', '--kill-child', process.execPath, supervisorPath, join(dir, 'world.json')],
    {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
      // Node's compile cache makes a second lab start noticeably quicker.
      env: { NODE_COMPILE_CACHE: join(tmpdir(), 'app-lab-node-cache'), ...process.env },
    },
  );
  const supervisorLog = createWriteStream(join(dir, 'supervisor.log'));
  supervisor.stdout!.pipe(supervisorLog);
  supervisor.stderr!.pipe(supervisorLog);
  let stderrTail = '';
  supervisor.stderr!.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-4000);
  });

  const pending = new Map<number, (result: WireQueryResult | ForwardResult) => void>();
  let nextId = 1;
  const exited = new Promise<void>((done) => supervisor.once('exit', () => done()));
  let startup: Record<string, number> = {};

  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`the lab did not start within ${timeoutMs} ms`)), timeoutMs);
    supervisor.on('message', (message: SupervisorMessage) => {
      if ('event' in message) {
        clearTimeout(timer);
        if (message.event === 'ready') {
          startup = message.startup;
          ready();
        } else fail(new Error(`the lab failed to start: ${message.message}`));
      } else {
        pending.get(message.id)?.(message.result);
        pending.delete(message.id);
      }
    });
    supervisor.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`the lab's supervisor exited (${signal ?? `code ${code}`}) before it was ready:\n${stderrTail.trim()}`));
      for (const resolvePending of pending.values())
        resolvePending({ outcome: 'network-error', error: 'the lab has stopped', transport: 'udp', rttMs: 0 });
      pending.clear();
    });
  }).catch(async (error: unknown) => {
    supervisor.kill('SIGKILL');
    await exited;
    throw error;
  });

  let stopping: Promise<void> | undefined;
  return {
    pid: supervisor.pid!,
    startup,
    alive: () => stopping === undefined && supervisor.exitCode === null,
    request(message) {
      if (stopping !== undefined || !supervisor.connected) return Promise.reject(new Error('the lab has stopped'));
      const id = nextId++;
      return new Promise((done) => {
        pending.set(id, done as (result: WireQueryResult | ForwardResult) => void);
        supervisor.send({ ...message, id });
      });
    },
    stop() {
      stopping ??= (async () => {
        supervisor.disconnect();
        const timer = setTimeout(() => supervisor.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
        supervisorLog.end();
      })();
      return stopping;
    },
  };
}
