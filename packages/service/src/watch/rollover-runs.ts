// The DNSSEC snapshots of a domain's recent runs, read from their stored query logs (nothing is asked
// again), newest last; each run is read once per process, as a watch looks back over the same runs
// again and again.
import { setTimeout as delay } from 'node:timers/promises';
import type { Exchange } from '@app/engine';
import type { Kysely } from 'kysely';
import type { ServiceSchema } from '../db/tables.ts';
import { recentRuns } from '../db/recent-runs.ts';
import { readQueryLog, type LoggedQuery } from '../db/test-evidence.ts';
import { findTest } from '../db/tests.ts';
import { dnssecSnapshot } from '../engine-adapter.ts';
import type { SnapshotRun } from './rollover.ts';

/** How far back a watch looks: DS and DNSKEY TTLs of a day or two are common. */
export const LOOK_BACK_MS = 3 * 86_400_000;
const MAX_RUNS = 24;
const CACHED = 2000;

/** A stored query as the engine's exchange; what the snapshot does not read is left empty. */
function asExchange(query: LoggedQuery): Exchange {
  return {
    server: query.server,
    qname: query.qname,
    qtype: query.qtype,
    qclass: 1,
    transport: query.transport,
    flags: { dnssec: query.dnssec === true, rd: query.rd === true },
    at: 0,
    ms: query.ms,
    ...(query.reply !== undefined && { reply: query.reply }),
  };
}

export class RolloverRuns {
  readonly #db: Kysely<ServiceSchema>;
  readonly #cache = new Map<string, SnapshotRun | null>();

  constructor(db: Kysely<ServiceSchema>) {
    this.#db = db;
  }

  /** The runs of `testId`'s domain up to it (itself last), or none when it is not a finished test. */
  async upTo(testId: string, waitForLogMs = 5000): Promise<SnapshotRun[]> {
    const test = await findTest(this.#db, testId);
    if (test?.ended_at === undefined || test.ended_at === null) return [];
    const until = Date.parse(test.ended_at);
    const since = new Date(until - LOOK_BACK_MS).toISOString();
    const runs = await recentRuns(this.#db, test.domain, Boolean(test.undelegated), since, test.ended_at, MAX_RUNS);
    const snapshots: SnapshotRun[] = [];
    for (const run of runs) {
      // The agent stores the log just after it marks the test finished.
      const wait = run.hashId === testId ? waitForLogMs : 0;
      const snapshot = await this.#snapshot(run.rowId, run.hashId, test.domain, Date.parse(run.endedAt), wait);
      if (snapshot !== null) snapshots.push(snapshot);
    }
    return snapshots;
  }

  async #snapshot(rowId: number, hashId: string, domain: string, at: number, waitMs: number): Promise<SnapshotRun | null> {
    const known = this.#cache.get(hashId);
    if (known !== undefined) return known;
    let log = await readQueryLog(this.#db, rowId);
    for (const started = Date.now(); log === undefined && Date.now() - started < waitMs;) {
      await delay(100);
      log = await readQueryLog(this.#db, rowId);
    }
    if (log === undefined) return null;
    let snapshot: SnapshotRun | null;
    try {
      snapshot = { testId: hashId, at, snapshot: dnssecSnapshot(domain, log.map(asExchange)) };
    } catch {
      snapshot = null; // a name the engine would not take: nothing to follow
    }
    if (this.#cache.size >= CACHED) this.#cache.delete(this.#cache.keys().next().value ?? '');
    this.#cache.set(hashId, snapshot);
    return snapshot;
  }
}
