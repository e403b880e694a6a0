// What the webhook soak concludes from the writes it made and the deliveries its receiver saw, per subscription:
// events lost, events out of order, events that came under two webhook-ids, repeats of one webhook-id (allowed:
// retries), delivery latency, and how long the backlog took to go once the receiver was back.
import type { Arrival } from './webhook-receiver.ts';

/** One write (a product created), by the client's clock: its first try and the answer that acknowledged it. */
export interface Write {
  start: number;
  /** Undefined when no try was answered 2xx (the write may still have committed). */
  ack: number | undefined;
}

export interface SubscriptionFigures {
  path: string;
  produced: number;
  lost: number;
  /** Events that arrived before one whose write was acknowledged before theirs began (happened-before broken). */
  outOfOrder: number;
  /** Neighbouring first arrivals in another order than the event log's (concurrent writes: allowed). */
  otherThanLog: number;
  /** The same event under two or more webhook-ids. */
  duplicatedWithoutSameId: number;
  /** Arrivals of a webhook-id already seen (at-least-once retries). */
  repeatsOfSameId: number;
}

export interface Timeline {
  /** When the receiver went down and came back (performance.now()); undefined when it stayed up. */
  downAt?: number;
  upAt?: number;
  killAt?: number;
}

export interface SoakFigures {
  subscriptions: SubscriptionFigures[];
  /** Latency (first arrival − acknowledgement) of events written while the receiver was up and no backlog was left. */
  latency: { count: number; p50: number; p99: number; max: number };
  /** The same, leaving out events written from 1 s before the SIGKILL to 30 s after (the dead instance's lease runs 25 s). */
  latencyAfterTakeover: { count: number; p50: number; p99: number; max: number };
  /** From the receiver's return until every event written before it had arrived (ms); undefined without an outage. */
  backlogGoneMs: number | undefined;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const summary = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? 0 };
};

/**
 * `produced`: the item_numbers of the products the database holds (each had a ProductCreated), with their event
 * log `seq`; `writes`: what the client saw of each; `arrivals`: the receiver's, in order.
 */
export function soakFigures(
  paths: readonly string[],
  produced: ReadonlyMap<string, number>,
  writes: ReadonlyMap<string, Write>,
  arrivals: readonly Arrival[],
  timeline: Timeline,
): SoakFigures {
  const subscriptions: SubscriptionFigures[] = [];
  /** The first arrival of each event, across subscriptions: the latest one counts (every subscription must get it). */
  const delivered = new Map<string, number>();
  for (const path of paths) {
    const first = new Map<string, Arrival>();
    const idsOf = new Map<string, Set<string>>();
    let repeatsOfSameId = 0;
    const seenIds = new Set<string>();
    for (const arrival of arrivals) {
      if (arrival.path !== path || arrival.itemNumber === undefined) continue;
      if (seenIds.has(arrival.webhookId)) repeatsOfSameId += 1;
      seenIds.add(arrival.webhookId);
      const ids = idsOf.get(arrival.itemNumber) ?? new Set<string>();
      ids.add(arrival.webhookId);
      idsOf.set(arrival.itemNumber, ids);
      if (!first.has(arrival.itemNumber)) first.set(arrival.itemNumber, arrival);
    }
    let outOfOrder = 0;
    let otherThanLog = 0;
    let latestStart = -Infinity;
    let previousSeq = -Infinity;
    // Map order is insertion order: first arrivals as they came.
    for (const [item, arrival] of first) {
      const write = writes.get(item);
      if (write !== undefined) {
        if (write.ack !== undefined && write.ack < latestStart) outOfOrder += 1;
        latestStart = Math.max(latestStart, write.start);
      }
      const seq = produced.get(item);
      if (seq !== undefined) {
        if (seq < previousSeq) otherThanLog += 1;
        previousSeq = seq;
      }
      delivered.set(item, Math.max(delivered.get(item) ?? -Infinity, arrival.at));
    }
    for (const item of produced.keys()) if (!first.has(item)) delivered.set(item, Infinity);
    subscriptions.push({
      path,
      produced: produced.size,
      lost: [...produced.keys()].filter((item) => !first.has(item)).length,
      outOfOrder,
      otherThanLog,
      duplicatedWithoutSameId: [...idsOf.values()].filter((ids) => ids.size > 1).length,
      repeatsOfSameId,
    });
  }

  const { downAt, upAt, killAt } = timeline;
  let backlogGoneAt = -Infinity;
  if (upAt !== undefined) {
    for (const [item, at] of delivered) {
      const write = writes.get(item);
      if (write !== undefined && write.start < upAt) backlogGoneAt = Math.max(backlogGoneAt, at);
    }
  }
  // An event counts when its write was answered at least 1 s before the receiver went down, or began once the
  // outage's backlog was gone.
  const whileUp = (write: Write & { ack: number }) =>
    downAt === undefined || write.ack < downAt - 1000 || (upAt !== undefined && write.start > Math.max(upAt, backlogGoneAt));
  const latencies: number[] = [];
  const afterTakeover: number[] = [];
  for (const [item, at] of delivered) {
    const write = writes.get(item);
    if (write?.ack === undefined || !whileUp({ ...write, ack: write.ack })) continue;
    const latency = Math.max(0, at - write.ack);
    latencies.push(latency);
    if (killAt === undefined || write.ack < killAt - 1000 || write.start > killAt + 30_000) afterTakeover.push(latency);
  }
  return {
    subscriptions,
    latency: summary(latencies),
    latencyAfterTakeover: summary(afterTakeover),
    backlogGoneMs: upAt === undefined ? undefined : Math.max(0, backlogGoneAt - upAt),
  };
}
