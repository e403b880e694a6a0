// What one request/response exchange over UDP or TCP needs and gives back.

export interface ServerAddress {
  address: string;
  port?: number;
}

export interface ExchangeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  sourceAddress?: string;
  /** Replies larger than this are dropped (UDP) or abort the connection (TCP). */
  maxResponseSize: number;
  /** Decides whether a reply belongs to the query; unmatched replies are dropped. */
  accepts(reply: Uint8Array): boolean;
}

export type ExchangeOutcome =
  | { kind: 'reply'; bytes: Uint8Array }
  | { kind: 'timeout' }
  | { kind: 'error'; error: Error };

export const DNS_PORT = 53;

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The query was aborted', 'AbortError');
}
