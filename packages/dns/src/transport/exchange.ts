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
  /** UDP: take replies from any address and port (still matched by id and question), as some resolver libraries do. */
  anySource?: boolean;
  /** Decides whether a reply belongs to the query; unmatched replies are dropped. */
  accepts(reply: Uint8Array): boolean;
}

export type ExchangeOutcome =
  /** `from`: the address the reply came from. */
  { kind: 'reply'; bytes: Uint8Array; from: string } | { kind: 'timeout' } | { kind: 'error'; error: Error };

export const DNS_PORT = 53;

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The query was aborted', 'AbortError');
}

/**
 * Settles an exchange exactly once, from whichever comes first: reply, timeout, socket error or
 * abort. `release` closes the socket and timers.
 */
export function settleOnce(
  signal: AbortSignal | undefined,
  resolve: (outcome: ExchangeOutcome) => void,
  reject: (error: Error) => void,
  release: () => void,
): { finish(outcome: ExchangeOutcome | Error): void; readonly done: boolean } {
  let done = false;
  const onAbort = () => finish(abortReason(signal!));
  const finish = (outcome: ExchangeOutcome | Error) => {
    if (done) return;
    done = true;
    signal?.removeEventListener('abort', onAbort);
    release();
    if (outcome instanceof Error) reject(outcome);
    else resolve(outcome);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    finish,
    get done() {
      return done;
    },
  };
}
