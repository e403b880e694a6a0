// What the API thread and the delivery thread (delivery-thread.ts) say to each other.
import type { RetrySchedule } from './delivery-worker.ts';
import type { ForwardedAnswer, ForwardedQuery } from './forwarded-writes.ts';

/** Everything the thread builds its worker from: plain data, since functions do not cross threads. */
export interface DeliveryThreadData {
  databaseUrl: string;
  /** The server key: app secrets and Standard Webhooks signing secrets derive from it. */
  key: Uint8Array;
  allowedNetworks: readonly string[];
  ca: string | undefined;
  retry: RetrySchedule | undefined;
  pollMs: number | undefined;
  timeoutMs: number | undefined;
  /** A sandbox store: the thread follows its movable clock (db/sandbox-clock.ts). */
  sandbox?: boolean;
}

export type ToDeliveryThread = 'wake' | 'stop' | ForwardedAnswer;

export type FromDeliveryThread =
  { kind: 'ready'; instance: string } | { kind: 'warn'; message: string } | { kind: 'stopped' } | ForwardedQuery;
