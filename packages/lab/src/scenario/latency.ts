// Time an answer takes on the Internet (10–200 ms), which the lab adds itself: the kernel has no
// netem, so the responder fronts every server and waits before it answers, over UDP and TCP alike.

/** A delay per answer, drawn uniformly from [minMs, maxMs] (equal for a fixed delay). */
export interface Latency {
  minMs: number;
  maxMs: number;
}

/** '50ms', '50' (milliseconds), '0.1s', or a range '20-80ms' / '20ms-80ms'. */
export function parseLatency(text: string): Latency {
  const ms = (part: string, unit: string): number => {
    const value = Number(part);
    if (part === '' || !Number.isFinite(value) || value < 0) throw new Error(`latency "${text}" is not a duration such as 50ms or 20-80ms`);
    return unit === 's' ? value * 1000 : value;
  };
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*(?:-\s*(\d+(?:\.\d+)?)\s*(ms|s)?)?\s*$/.exec(text);
  if (match === null) throw new Error(`latency "${text}" is not a duration such as 50ms or 20-80ms`);
  const [, low = '', lowUnit, high, highUnit] = match;
  const unit = highUnit ?? lowUnit ?? 'ms';
  const minMs = ms(low, lowUnit ?? unit);
  const maxMs = high === undefined ? minMs : ms(high, unit);
  if (maxMs < minMs) throw new Error(`latency "${text}": the upper bound is below the lower one`);
  return { minMs, maxMs };
}

export const describeLatency = (l: Latency): string => (l.minMs === l.maxMs ? `${l.minMs} ms` : `${l.minMs}–${l.maxMs} ms`);

/** One answer's delay. */
export const drawDelay = (l: Latency): number => l.minMs + Math.random() * (l.maxMs - l.minMs);
