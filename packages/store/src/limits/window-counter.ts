// Fixed 10-second windows, aligned to the clock so every instance agrees on where a window starts.

export const WINDOW_MS = 10_000;

export interface WindowCount {
  /** Calls counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
}

export interface WindowCounter {
  /** Counts a call; an in-memory counter answers at once, without a promise to wait on. */
  hit(key: string, now: number): WindowCount | Promise<WindowCount>;
  close(): Promise<void>;
}

export function windowOf(now: number): { id: number; resetInMs: number } {
  const id = Math.floor(now / WINDOW_MS);
  return { id, resetInMs: (id + 1) * WINDOW_MS - now };
}

/** Counters for one instance. Old windows are dropped as time moves on. */
export function memoryWindowCounter(): WindowCounter {
  let current = -1;
  let counts = new Map<string, number>();
  return {
    hit(key, now) {
      const window = windowOf(now);
      if (window.id !== current) {
        current = window.id;
        counts = new Map();
      }
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return { count, resetInMs: window.resetInMs };
    },
    close: () => Promise.resolve(),
  };
}
