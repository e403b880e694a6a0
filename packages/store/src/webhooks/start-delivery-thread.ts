// Runs the delivery worker in its own thread (delivery-thread.ts) and tells it of this process's queued events.
// A thread that dies (its database unreachable at start, a crash) is started again after a pause.
import { Worker } from 'node:worker_threads';
import type { StoreDatabase } from '../db/schema.ts';
import { runForwarded } from './forwarded-writes.ts';
import type { DeliveryThreadData, FromDeliveryThread, ToDeliveryThread } from './delivery-thread-messages.ts';

/** At most one wake-up this often: the thread delivers everything pending once woken, so more are only queries. */
const WAKE_EVERY_MS = 10;
const RESTART_AFTER_MS = 1000;

export interface DeliveryThread {
  /** Settles once the first thread delivers (or failed to start: it is then started again). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export function startDeliveryThread(
  data: DeliveryThreadData,
  options: {
    database: StoreDatabase;
    nudges: (wake: () => void) => () => void;
    log: { warn(message: string): void };
    stopWithinMs: number;
  },
): DeliveryThread {
  let thread: Worker | undefined;
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;
  const tell = (message: ToDeliveryThread) => thread?.postMessage(message);
  let started!: () => void;
  const ready = new Promise<void>((resolve) => (started = resolve));

  function start(): void {
    const running = new Worker(new URL('./delivery-thread.ts', import.meta.url), { workerData: data });
    thread = running;
    // Like the timers of a worker in this thread: delivery alone does not keep the process running.
    running.unref();
    running.on('message', (message: FromDeliveryThread) => {
      if (message.kind === 'ready') started();
      if (message.kind === 'warn') options.log.warn(message.message);
      if (message.kind === 'stopped') void running.terminate();
      if (message.kind === 'query') runForwarded(options.database, running, message);
    });
    running.on('error', (error: Error) => options.log.warn(`the webhook delivery thread failed: ${error.message}`));
    running.on('exit', () => {
      started();
      if (thread === running) thread = undefined;
      if (stopping) return;
      restart = setTimeout(start, RESTART_AFTER_MS);
      restart.unref();
    });
  }

  // Leading and trailing: the first write's events go at once, a burst's last ones within WAKE_EVERY_MS.
  let quietUntil = 0;
  let trailing: NodeJS.Timeout | undefined;
  const unsubscribe = options.nudges(() => {
    const now = Date.now();
    if (now >= quietUntil) {
      quietUntil = now + WAKE_EVERY_MS;
      tell('wake');
    } else {
      trailing ??= setTimeout(() => {
        trailing = undefined;
        quietUntil = Date.now() + WAKE_EVERY_MS;
        tell('wake');
      }, quietUntil - now);
    }
  });

  start();
  return {
    ready,
    async stop() {
      stopping = true;
      unsubscribe();
      clearTimeout(restart);
      clearTimeout(trailing);
      const running = thread;
      if (running === undefined) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.postMessage('stop' satisfies ToDeliveryThread);
      // A send in flight ends within its time limit; a thread that still has not stopped is ended.
      const limit = setTimeout(() => void running.terminate(), options.stopWithinMs);
      await exited;
      clearTimeout(limit);
    },
  };
}
