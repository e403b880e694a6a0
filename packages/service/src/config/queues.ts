// The queues callers may name (SERVICE.queues): a short list, so that a caller cannot spread tests over
// queues no agent serves, nor grow /metrics with a series per queue.
export const MAX_QUEUES = 100;
export const DEFAULT_QUEUES = '0-9';

/** `0-9`, `0, 5, 7-8`: queue numbers and ranges; undefined when the text is not such a list or is too long. */
export function parseQueues(text: string): number[] | undefined {
  const queues = new Set<number>();
  for (const item of text.split(/[\s,]+/).filter((part) => part !== '')) {
    const match = /^(\d{1,9})(?:-(\d{1,9}))?$/.exec(item);
    if (match === null) return undefined;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first || last - first >= MAX_QUEUES) return undefined;
    for (let queue = first; queue <= last; queue++) queues.add(queue);
    if (queues.size > MAX_QUEUES) return undefined;
  }
  return [...queues].sort((a, b) => a - b);
}

/** The list as people write it: runs of consecutive queues as ranges. */
export function queuesText(queues: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < queues.length;) {
    let j = i;
    while (j + 1 < queues.length && queues[j + 1] === (queues[j] ?? 0) + 1) j++;
    parts.push(j === i ? String(queues[i]) : `${queues[i]}-${queues[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}
