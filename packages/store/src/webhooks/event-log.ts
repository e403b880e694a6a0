// The event log clients catch up from: reading it in seq order (event-sequencer.ts) behind a sealed cursor, and removing what is older
// than the retention, a small batch at a time so no removal holds the table long.
import type { StoreDatabase } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { EVENT_LOG_COUNT, eventTypes, type EventName } from '../model/event-types.ts';
import type { ScopeGroup } from '../model/declaration.ts';
import { resourceEvents } from './resource-events.ts';
import { cursorSeal } from '../http/signed-cursor.ts';

export const DEFAULT_EVENT_LOG_DAYS = 30;
export const DEFAULT_EVENT_COUNT = EVENT_LOG_COUNT.default;
export const MAX_EVENT_COUNT = EVENT_LOG_COUNT.max;
const PRUNE_BATCH = 500;

/** Every event the log holds: those the writes of resources send (the ones webhooks carry). */
export const loggedEvents: readonly EventName[] = [
  ...new Set(Object.values(resourceEvents).flatMap((declared) => declared.rules.map((rule) => rule.event))),
].sort();

/** The scope group whose read scope an event needs: that of the records it carries. */
export function eventGroup(event: EventName): ScopeGroup {
  return eventTypes[event].needs.group;
}

export interface EventCursors {
  /** The cursor of log position `seq`, sealed (a MAC), so one this server did not make is refused. */
  cursor(seq: number): string;
  /** The log position (seq) a cursor stands for; a 400 in the store's error format for anything this server did not make. */
  parse(text: string): number;
}

const LEGACY_PREFIX = 'ev1:';

// Cursors given out before they were sealed: `ev1:<seq>` in base64url, taken only as written (no other spelling of
// the same bytes), so a client holding one keeps its place. Those made before seq existed carried ids; the rows then
// in the log took their id as their seq. The route refuses one past the log's end.
function legacySeq(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url').toString('latin1');
  if (!decoded.startsWith(LEGACY_PREFIX) || Buffer.from(decoded, 'latin1').toString('base64url') !== text) return undefined;
  return decoded.slice(LEGACY_PREFIX.length);
}

export function eventCursors(authKey: Uint8Array): EventCursors {
  const seal = cursorSeal(authKey, 'event-cursor');
  return {
    cursor: (seq) => seal.seal(String(seq), 'events'),
    parse(text) {
      const opened = text.length > 100 ? undefined : (seal.open(text, 'events') ?? legacySeq(text));
      const seq = opened !== undefined && /^(0|[1-9][0-9]{0,15})$/.test(opened) ? Number(opened) : Number.NaN;
      if (!Number.isSafeInteger(seq)) throw notACursor(text);
      return seq;
    },
  };
}

export function notACursor(text: string, why = 'is not a cursor of this event log'): ApiError {
  return new ApiError(
    400,
    `after: ${JSON.stringify(text.slice(0, 80))} ${why}; pass the \`next\` of an earlier answer, or leave it out to start at the oldest event`,
  );
}

/** The highest log position given out so far (0 for an empty log): no cursor this server made stands past it. */
export async function lastSeq(database: StoreDatabase): Promise<number> {
  const top = await database.db
    .selectFrom('event_log')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  return Number(top?.seq ?? 0);
}

export interface LoggedEvent {
  /** The event's own cursor: passed as `after`, the listing goes on behind it. */
  id: string;
  event_type: EventName;
  resource: string;
  record_id: number | null;
  created_at: string;
  /** The body a webhook delivery of the event carries. */
  data: unknown;
}

/**
 * Up to `count` events of `types` after log position `after`, oldest first; `last` is the seq of the last one.
 * Only numbered rows are read: those committed since are numbered after them (event-sequencer.ts).
 */
export async function readEvents(
  database: StoreDatabase,
  after: number,
  types: readonly EventName[],
  count: number,
  cursors: EventCursors,
): Promise<{ events: LoggedEvent[]; last: number | undefined }> {
  if (types.length === 0) return { events: [], last: undefined };
  let query = database.db
    .selectFrom('event_log')
    .select(['seq', 'event_type', 'resource', 'record_id', 'body', 'created_at'])
    .where('seq', '>', after);
  if (types.length < loggedEvents.length) query = query.where('event_type', 'in', [...types]);
  const rows = await query.orderBy('seq').limit(count).execute();
  const events = rows.map((row): LoggedEvent => ({
    id: cursors.cursor(Number(row.seq)),
    event_type: row.event_type as EventName,
    resource: String(row.resource),
    record_id: row.record_id === null || row.record_id === undefined ? null : Number(row.record_id),
    created_at: String(row.created_at),
    data: JSON.parse(String(row.body)) as unknown,
  }));
  return { events, last: rows.length === 0 ? undefined : Number(rows.at(-1)?.seq) };
}

/**
 * Removes up to one batch of events older than `days`; answers how many went. The newest numbered event stays:
 * numbering goes on after the highest seq there is, so a log emptied would number again from 1, behind the cursors
 * clients hold.
 */
export async function pruneEventLog(database: StoreDatabase, days: number, nowMs = Date.now()): Promise<number> {
  const cutoff = new Date(nowMs - days * 86_400_000).toISOString();
  const top = await lastSeq(database);
  // Ids first, then a DELETE by them: MariaDB takes no LIMIT in an IN subquery.
  const ids = (
    await database.db
      .selectFrom('event_log')
      .select('id')
      .where('created_at', '<', cutoff)
      .where((eb) => eb.or([eb('seq', 'is', null), eb('seq', '<', top)]))
      .orderBy('created_at')
      .orderBy('id')
      .limit(PRUNE_BATCH)
      .execute()
  ).map((row) => Number(row.id));
  if (ids.length === 0) return 0;
  const result = await database.db.deleteFrom('event_log').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Prunes every `everyMs` until stopped, batch after batch while full ones come back. */
export function startEventLogPruning(
  database: StoreDatabase,
  options: { days: number; everyMs?: number; now?: () => number; log?: { warn(object: unknown, message: string): void } },
): { stop(): Promise<void> } {
  const now = options.now ?? Date.now;
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = async () => {
    while (!stopped && (await pruneEventLog(database, options.days, now())) === PRUNE_BATCH) {
      // A pause between batches leaves the table to the writes.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const tick = () => {
    if (running !== undefined) return;
    running = run()
      .catch((error: unknown) => options.log?.warn({ err: error }, 'event log pruning failed; next try at the next tick'))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, options.everyMs ?? 60 * 60_000);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
