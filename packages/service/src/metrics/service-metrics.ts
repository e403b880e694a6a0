// What an operator's Prometheus scrapes (GET /metrics): the queue read from the database at scrape
// time, and counters of what this process did (RPC calls; with an agent inside it, tests and DNS queries).
// One registry per service instance, so several services in one process (the tests) never mix counts.
import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ServiceSchema } from '../db/tables.ts';
import type { CallOutcome } from '../rpc/envelope.ts';
import { secondsAgo } from '../db/timestamps.ts';

/** An agent seen within this many seconds is alive (it writes a heartbeat three times a minute). */
export const AGENT_ALIVE_SECONDS = 60;

/** What the agent reports as it works. */
export interface AgentMetrics {
  testStarted(): void;
  testFinished(overallResult: string, seconds: number): void;
  testDied(reason: 'died' | 'timed_out'): void;
  dnsQuery(answered: boolean): void;
}

export interface ServiceMetrics {
  readonly registry: Registry;
  readonly agent: AgentMetrics;
  rpcCall(method: string, outcome: CallOutcome): void;
}

/**
 * `queues`: the configured ones (SERVICE.queues), each a label of the queue depth; tests in any other queue
 * (stored before the list changed, or by another configuration) are summed as `other`, so callers cannot add series.
 */
export function createServiceMetrics(
  db: Kysely<ServiceSchema>,
  isKnownMethod: (name: string) => boolean,
  queues: readonly number[],
): ServiceMetrics {
  const registry = new Registry();
  const prefix = 'dns_health_';
  const labelled = new Set(queues);
  new Gauge({
    name: `${prefix}queue_depth`,
    help: 'Tests waiting to be claimed, by configured queue (the rest as "other").',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      const waiting = new Map<string, number>([...queues.map((q): [string, number] => [String(q), 0]), ['other', 0]]);
      const rows = await db
        .selectFrom('dh_test')
        .select(['queue', (eb) => eb.fn.countAll<number | string>().as('waiting')])
        .where('progress', '=', 0)
        .groupBy('queue')
        .execute();
      for (const row of rows) {
        const label = labelled.has(Number(row.queue)) ? String(row.queue) : 'other';
        waiting.set(label, (waiting.get(label) ?? 0) + Number(row.waiting));
      }
      for (const [queue, count] of waiting) this.set({ queue }, count);
    },
  });
  new Gauge({
    name: `${prefix}agents_alive`,
    help: `Agents that wrote a heartbeat within the last ${AGENT_ALIVE_SECONDS} s.`,
    registers: [registry],
    async collect() {
      this.set(await agentsAlive(db));
    },
  });
  const started = new Counter({ name: `${prefix}tests_started_total`, help: 'Test runs this process started.', registers: [registry] });
  const finished = new Counter({
    name: `${prefix}tests_finished_total`,
    help: 'Tests this process finished, by overall result.',
    labelNames: ['overall_result'],
    registers: [registry],
  });
  const died = new Counter({
    name: `${prefix}tests_died_total`,
    help: 'Tests this process finished as died or timed out.',
    labelNames: ['reason'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${prefix}test_duration_seconds`,
    help: 'How long test runs took, from claim to results.',
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const queries = new Counter({
    name: `${prefix}dns_queries_total`,
    help: 'DNS queries the engine sent in this process.',
    registers: [registry],
  });
  const timedOut = new Counter({
    name: `${prefix}dns_queries_timed_out_total`,
    help: 'DNS queries that got no reply.',
    registers: [registry],
  });
  const rpc = new Counter({
    name: `${prefix}rpc_requests_total`,
    help: 'JSON-RPC requests by method and outcome.',
    labelNames: ['method', 'outcome'],
    registers: [registry],
  });
  // Zero series for the common labels, so a rate() has a starting point before the first event.
  finished.inc({ overall_result: 'ok' }, 0);
  for (const reason of ['died', 'timed_out']) died.inc({ reason }, 0);

  // A child per (method, outcome), so a call costs a map lookup, not prom-client's label hashing.
  const rpcChildren = new Map<string, { inc(): void }>();
  const rpcCall = (method: string, outcome: CallOutcome) => {
    const name = isKnownMethod(method) ? method : 'unknown';
    const key = `${name} ${outcome}`;
    let child = rpcChildren.get(key);
    if (child === undefined) rpcChildren.set(key, (child = rpc.labels({ method: name, outcome })));
    child.inc();
  };

  return {
    registry,
    agent: {
      testStarted: () => started.inc(),
      testFinished: (overallResult, seconds) => {
        finished.inc({ overall_result: overallResult });
        duration.observe(seconds);
      },
      testDied: (reason) => died.inc({ reason }),
      dnsQuery: (answered) => {
        queries.inc();
        if (!answered) timedOut.inc();
      },
    },
    // A method name the service does not have is counted as 'unknown', so callers cannot grow the label set.
    rpcCall,
  };
}

export async function agentsAlive(db: Kysely<ServiceSchema>): Promise<number> {
  const row = await db
    .selectFrom('dh_agent')
    .select((eb) => eb.fn.countAll<number | string>().as('alive'))
    .where('seen_at', '>=', secondsAgo(AGENT_ALIVE_SECONDS))
    .executeTakeFirst();
  return Number(row?.alive ?? 0);
}
