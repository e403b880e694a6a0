// An agent's V8 heap limit. Left at Node's default (a quarter of the machine's memory, up to 4 GB) V8
// keeps garbage long: over a 20,000-test batch an agent's RSS grew from 450 to 950 MB, where with
// --max-old-space-size=256 it stayed at 310-340 MB for the same work (docs/agents-and-batches.md).
import { getHeapStatistics } from 'node:v8';

/** What we run agents with, and advise (measured with 16 tests at once). */
export const agentHeapMb = 256;

/** Above this the limit was surely not chosen for an agent. */
const unchosenMb = 1024;

export const heapLimitMb = (): number => Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);

/** A line for the operator when the agent runs with a heap limit nobody chose; undefined otherwise. */
export function heapAdvice(limitMb: number): string | undefined {
  if (limitMb <= unchosenMb) return undefined;
  return (
    `dns-service agent: the heap may grow to ${limitMb} MB, and V8 keeps garbage up to it; ` +
    `start agents with node --max-old-space-size=${agentHeapMb} (or NODE_OPTIONS) to keep each near 350 MB (docs/agents-and-batches.md)`
  );
}
