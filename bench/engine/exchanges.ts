// What one dnscheck run sent, read from its saved run (--save): queries, identical questions sent
// more than once, queries that waited out a timeout, and when the first one left (start-up).
// Zone transfers (at most one per server and run) are not among a saved run's exchanges.
import type { Exchange } from '@app/engine';

export interface QueryCounts {
  queries: number;
  /** Sends of a question already sent in the run (same address, name as sent, type, class, flags, transport). */
  duplicates: number;
  /** The repeated questions, 'address name type transport flags ×n'. */
  repeated: string[];
  /** Queries that got no reply after a second or more: a timeout waited out (not an instant network error). */
  timeouts: number;
  /** Milliseconds from process start to the first query. */
  firstQueryMs: number | undefined;
  /** Round trips one after another: the longest chain of queries each sent after the one before it was answered. */
  sequentialRoundTrips: number;
}

/**
 * The longest chain of exchanges each sent once the previous one had ended: the round trips on the
 * run's critical path (an upper bound: a later query need not have waited for that earlier one).
 */
export function longestChain(exchanges: readonly Pick<Exchange, 'at' | 'ms'>[]): number {
  const sorted = [...exchanges].sort((a, b) => a.at - b.at);
  const chain: number[] = [];
  let best = 0;
  sorted.forEach((e, i) => {
    let before = 0;
    // `at` and `ms` are whole milliseconds: an answer and the query it let go may round to the same one.
    for (let j = 0; j < i; j++) if (sorted[j].at + sorted[j].ms <= e.at + 1) before = Math.max(before, chain[j]);
    chain[i] = before + 1;
    best = Math.max(best, chain[i]);
  });
  return best;
}

/** The question as it went on the wire; the name's case counts (Nameserver08 and 09 ask in mixed case on purpose). */
export function questionKey(e: Exchange): string {
  const address = e.server.split('/').at(-1);
  const flags = JSON.stringify(
    Object.fromEntries(
      Object.entries(e.flags)
        .filter(([, v]) => v !== undefined)
        .sort(),
    ),
  );
  return `${address} ${e.qname} ${e.qtype} ${e.qclass} ${e.transport} ${flags}`;
}

export function countQueries(savedRunJson: string): QueryCounts {
  const { exchanges } = JSON.parse(savedRunJson) as { exchanges: Exchange[] };
  const seen = new Map<string, number>();
  for (const e of exchanges) seen.set(questionKey(e), (seen.get(questionKey(e)) ?? 0) + 1);
  const repeated = [...seen].filter(([, n]) => n > 1);
  return {
    queries: exchanges.length,
    duplicates: repeated.reduce((sum, [, n]) => sum + n - 1, 0),
    repeated: repeated.map(([key, n]) => `${key} ×${n}`),
    timeouts: exchanges.filter((e) => e.reply === undefined && e.ms >= 1000).length,
    firstQueryMs: exchanges.length > 0 ? Math.min(...exchanges.map((e) => e.at)) : undefined,
    sequentialRoundTrips: longestChain(exchanges),
  };
}
