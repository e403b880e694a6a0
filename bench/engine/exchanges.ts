// What one dnscheck run sent, read from its saved run (--save): queries, identical questions sent
// more than once, queries that got no reply, and when the first one left (start-up).

interface SavedExchange {
  server: string;
  qname: string;
  qtype: number;
  qclass: number;
  transport: 'udp' | 'tcp';
  flags: Record<string, unknown>;
  at: number;
  ms: number;
  reply?: string;
}

export interface QueryCounts {
  queries: number;
  /** Sends of a question already sent in the run (same address, name as sent, type, class, flags, transport). */
  duplicates: number;
  /** The repeated questions, 'address name type transport flags ×n'. */
  repeated: string[];
  /** Queries that waited out the timeout. */
  timeouts: number;
  /** Milliseconds from process start to the first query. */
  firstQueryMs: number | undefined;
}

/** The question as it went on the wire; the name's case counts (Nameserver08 and 09 ask in mixed case on purpose). */
export function questionKey(e: SavedExchange): string {
  const address = e.server.split('/').at(-1);
  const flags = JSON.stringify(Object.fromEntries(Object.entries(e.flags).filter(([, v]) => v !== undefined).sort()));
  return `${address} ${e.qname} ${e.qtype} ${e.qclass} ${e.transport} ${flags}`;
}

export function countQueries(savedRunJson: string): QueryCounts {
  const { exchanges } = JSON.parse(savedRunJson) as { exchanges: SavedExchange[] };
  const seen = new Map<string, number>();
  for (const e of exchanges) seen.set(questionKey(e), (seen.get(questionKey(e)) ?? 0) + 1);
  const repeated = [...seen].filter(([, n]) => n > 1);
  return {
    queries: exchanges.length,
    duplicates: repeated.reduce((sum, [, n]) => sum + n - 1, 0),
    repeated: repeated.map(([key, n]) => `${key} ×${n}`),
    timeouts: exchanges.filter((e) => e.reply === undefined).length,
    firstQueryMs: exchanges.length > 0 ? Math.min(...exchanges.map((e) => e.at)) : undefined,
  };
}
