// Caps how many queries are in flight; the rest wait their turn (first come, first served).
import { abortReason } from './exchange.ts';
import { query, type QueryOptions, type QueryResult, type QuestionInput, type ServerAddress } from './query.ts';

export interface Querier {
  query(server: ServerAddress, question: QuestionInput, options?: QueryOptions): Promise<QueryResult>;
  readonly inFlight: number;
  readonly waiting: number;
}

export function createQuerier(settings: { maxInFlight: number; defaults?: QueryOptions }): Querier {
  if (!(settings.maxInFlight >= 1)) throw new RangeError('maxInFlight must be at least 1');
  let inFlight = 0;
  const queue: (() => void)[] = [];

  const acquire = (signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (inFlight < settings.maxInFlight) {
        inFlight++;
        resolve();
        return;
      }
      const start = () => {
        signal?.removeEventListener('abort', onAbort);
        inFlight++;
        resolve();
      };
      const onAbort = () => {
        queue.splice(queue.indexOf(start), 1);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(start);
    });

  const release = () => {
    inFlight--;
    queue.shift()?.();
  };

  return {
    async query(server, question, options = {}) {
      const merged = { ...settings.defaults, ...options };
      if (merged.signal?.aborted) throw abortReason(merged.signal);
      await acquire(merged.signal);
      try {
        return await query(server, question, merged);
      } finally {
        release();
      }
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return queue.length;
    },
  };
}
