// What a database failover must not break, measured from the client's side and checked in the database after: how
// long until writes flowed again after the kill, whether every write the API acknowledged (a 2xx answer naming a
// record) is there, and whether the event log the webhooks carry is numbered without a hole and holds one creation
// event for each such record.
import type { Kysely } from 'kysely';
import type { StoreSchema } from '../../src/db/schema.ts';

/** The writes of a load, timed: each request goes through `send`, kills are marked with `killed`. */
export class WriteTimeline {
  readonly #kills: number[] = [];
  /** When each 2xx answer came. */
  readonly #successes: number[] = [];
  /** Record ids the API acknowledged (from 2xx answers' bodies). */
  readonly acknowledged = new Set<number>();
  /**
   * What a failover must not cause: answers neither 2xx nor retryable (409, 429, the store's 503 in its error format
   * with Retry-After, a proxy's own 502-504 page), such as a 500 or an error's details leaked.
   */
  readonly failures: { status: number; text: string }[] = [];
  /** The store's 503s (its database unreachable or busy): retryable. */
  unavailable = 0;
  /** A proxy's own 502-504 (no instance up or answering in time): retryable, and not the store's answer. */
  proxied = 0;

  async send<T extends { status: number; text: string; retryAfterS?: number } | undefined>(request: () => Promise<T>): Promise<T> {
    const answer = await request();
    if (answer === undefined) return answer;
    const { status, text } = answer;
    if (status >= 200 && status < 300) {
      this.#successes.push(Date.now());
      const id = (JSON.parse(text) as { id?: unknown }).id;
      if (typeof id === 'number') this.acknowledged.add(id);
    } else if (status === 503 && storeUnavailable(text) && answer.retryAfterS !== undefined) {
      this.unavailable += 1;
    } else if (status >= 502 && status <= 504 && !isJson(text)) {
      this.proxied += 1;
    } else if (status !== 409 && status !== 429) {
      this.failures.push({ status, text: text.slice(0, 500) });
    }
    return answer;
  }

  killed(at = Date.now()): void {
    this.#kills.push(at);
  }

  /**
   * For each kill: how long until writes flowed again, i.e. until the first 2xx answer that began a run of them lasting
   * RESUMED_FOR_MS with no pause over MAX_PAUSE_MS (undefined while none has). Not simply the first 2xx after the kill:
   * the killed server's backends live on for a moment and may still commit (on the standby too) what was under way.
   */
  downtimes(): (number | undefined)[] {
    const answered = [...this.#successes].sort((a, b) => a - b);
    return this.#kills.map((kill, i) => {
      const end = this.#kills[i + 1] ?? Number.POSITIVE_INFINITY;
      let runStart: number | undefined;
      let previous = kill;
      for (const at of answered) {
        if (at < kill || at >= end) continue;
        if (runStart === undefined || at - previous > MAX_PAUSE_MS) runStart = at;
        if (at - runStart >= RESUMED_FOR_MS) return runStart - kill;
        previous = at;
      }
      return undefined;
    });
  }
}

/** Writes count as flowing again once answered 2xx for this long, */
const RESUMED_FOR_MS = 1000;
/** with no pause between two 2xx answers longer than this. */
const MAX_PAUSE_MS = 500;

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The store's own 503 (error format, no details beyond its fixed words), not a proxy's page. */
function storeUnavailable(text: string): boolean {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return body.status_code === 503 && Object.keys(body).sort().join() === 'details,message,status_code';
  } catch {
    return false;
  }
}

/** Acknowledged record ids of `table` that are not there. */
export async function missingRecords(
  db: Kysely<StoreSchema>,
  table: 'products' | 'manufacturers',
  ids: ReadonlySet<number>,
): Promise<number[]> {
  const have = new Set<number>();
  const all = [...ids];
  for (let i = 0; i < all.length; i += 1000) {
    const rows = await db
      .selectFrom(table)
      .select('id')
      .where('id', 'in', all.slice(i, i + 1000))
      .execute();
    for (const row of rows) have.add(Number(row.id));
  }
  return all.filter((id) => !have.has(id));
}

export interface EventLogCheck {
  /** Numbered events. */
  events: number;
  /** Positions missing between the first and the last (goal: none). */
  holes: number[];
  /** Rows not numbered yet (the sequencer numbers them on the next read). */
  unnumbered: number;
  /** Acknowledged records with no creation event, or more than one. */
  recordsWithoutOneEvent: number[];
}

/** The event log's numbering, and one `event` per acknowledged record of it. */
export async function checkEventLog(db: Kysely<StoreSchema>, event: string, acknowledged: ReadonlySet<number>): Promise<EventLogCheck> {
  const rows = await db.selectFrom('event_log').select(['seq', 'event_type', 'record_id']).execute();
  const seqs = rows
    .map((row) => row.seq)
    .filter((seq) => seq !== null && seq !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const holes: number[] = [];
  for (let i = 1; i < seqs.length; i += 1) {
    const [previous, current] = [seqs[i - 1] ?? 0, seqs[i] ?? 0];
    for (let missing = previous + 1; missing < current && holes.length < 100; missing += 1) holes.push(missing);
  }
  const perRecord = new Map<number, number>();
  for (const row of rows)
    if (row.event_type === event && row.record_id !== null)
      perRecord.set(Number(row.record_id), (perRecord.get(Number(row.record_id)) ?? 0) + 1);
  return {
    events: seqs.length,
    holes,
    unnumbered: rows.length - seqs.length,
    recordsWithoutOneEvent: [...acknowledged].filter((id) => perRecord.get(id) !== 1),
  };
}
