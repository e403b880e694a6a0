// The webhook soak's receiver (webhook-receiver.ts) in a process of its own, so that answering deliveries never waits
// behind the load generator's work; this is the soak's handle on it: take it down, bring it back, read what came.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Arrival, ReceiverCommand, ReceiverReply } from './webhook-receiver.ts';

export interface SoakReceiver {
  readonly port: number;
  down(): Promise<void>;
  start(): Promise<void>;
  /** How many different events each path (subscription) has received. */
  distinct(): Promise<Record<string, number>>;
  /** Every delivery received, in order of arrival. */
  arrivals(): Promise<Arrival[]>;
  close(): Promise<void>;
}

export async function startSoakReceiver(tls: { key: string; cert: string }): Promise<SoakReceiver> {
  const child: ChildProcess = fork(new URL('./webhook-receiver.ts', import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // One question at a time: each reply answers the command sent before it.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = <T extends ReceiverReply>(command: ReceiverCommand): Promise<T> => {
    const asked = queue.then(async () => {
      child.send(command);
      const [reply] = (await once(child, 'message')) as [T];
      return reply;
    });
    queue = asked.catch(() => undefined);
    return asked;
  };
  const { port } = await ask<{ kind: 'listening'; port: number }>({ kind: 'start', tls, port: 0 });
  return {
    port,
    down: async () => void (await ask({ kind: 'down' })),
    start: async () => void (await ask({ kind: 'start', tls, port })),
    distinct: async () => (await ask<{ kind: 'distinct'; paths: Record<string, number> }>({ kind: 'distinct' })).paths,
    arrivals: async () => (await ask<{ kind: 'arrivals'; arrivals: Arrival[] }>({ kind: 'arrivals' })).arrivals,
    close: async () => {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}
