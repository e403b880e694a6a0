// A sandbox store's clock: real time plus an offset an integrator moves forward (POST /sandbox/clock,
// `store sandbox clock`), so expiries, retention and retry schedules play out at once. The offset is kept in
// the database, so every instance and the CLI agree; instances re-read it a few times a second.
import type { Kysely } from 'kysely';

interface ClockTables {
  sandbox_clock: { id: number; offset_ms: number | string | bigint };
}

type ClockDb = Kysely<ClockTables>;
/** Any store database: only its sandbox_clock table is read here. */
const clockDb = <DB>(db: Kysely<DB>) => db as unknown as ClockDb;

const ROW = 1;
const REFRESH_MS = 250;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const DURATION = /^(?:\d+(?:ms|s|m|h|d|w))+$/;

/** "30d", "1d12h", "90s" as milliseconds; undefined for anything else (negative or empty included). */
export function parseDuration(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|m|h|d|w)/g)) total += Number(amount) * (UNIT_MS[unit ?? ''] ?? Number.NaN);
  return Number.isSafeInteger(total) && total > 0 ? total : undefined;
}

/** The offset kept for this store; undefined when the store has never been served in sandbox mode. */
export async function readClockOffset<DB>(db: Kysely<DB>): Promise<number | undefined> {
  const row = await clockDb(db).selectFrom('sandbox_clock').select('offset_ms').where('id', '=', ROW).executeTakeFirst();
  return row === undefined ? undefined : Number(row.offset_ms);
}

/** Marks the store as a sandbox (its clock starts at real time) unless it already is one. */
export async function ensureSandboxClock<DB>(db: Kysely<DB>): Promise<void> {
  if ((await readClockOffset(db)) !== undefined) return;
  // Two instances starting at once may both insert: the loser's duplicate key is the row it wanted.
  await clockDb(db)
    .insertInto('sandbox_clock')
    .values({ id: ROW, offset_ms: 0 })
    .execute()
    .catch(async (error: unknown) => {
      if ((await readClockOffset(db)) === undefined) throw error;
    });
}

/** Moves the kept clock forward by `ms` (one UPDATE, so concurrent moves add up); the new offset. */
export async function advanceClockOffset<DB>(db: Kysely<DB>, ms: number): Promise<number> {
  const clock = clockDb(db);
  await clock
    .updateTable('sandbox_clock')
    .set((eb) => ({ offset_ms: eb('offset_ms', '+', ms) }))
    .where('id', '=', ROW)
    .execute();
  const offset = await readClockOffset(db);
  if (offset === undefined) throw new Error('this store is not a sandbox: it has no sandbox clock');
  return offset;
}

export interface SandboxClock {
  /** Milliseconds since the epoch, as the sandbox sees them. */
  readonly now: () => number;
  readonly offsetMs: () => number;
  /** Moves time forward by `ms` for every instance; this one at once, the others within a quarter second. */
  readonly advance: (ms: number) => Promise<number>;
  readonly stop: () => void;
}

/** This instance's view of the sandbox clock, over `base` (real time, or a test's clock). */
export async function followSandboxClock<DB>(db: Kysely<DB>, base: () => number = Date.now): Promise<SandboxClock> {
  await ensureSandboxClock(db);
  let offset = (await readClockOffset(db)) ?? 0;
  // Time never runs backwards here, whichever of a refresh or an advance lands last.
  const take = (fresh: number | undefined) => {
    if (fresh !== undefined && fresh > offset) offset = fresh;
    return offset;
  };
  const refresh = setInterval(() => {
    readClockOffset(db).then(take, () => undefined);
  }, REFRESH_MS);
  refresh.unref();
  return {
    now: () => base() + offset,
    offsetMs: () => offset,
    advance: async (ms) => take(await advanceClockOffset(db, ms)),
    stop: () => clearInterval(refresh),
  };
}
