// `page=N` of a whole table in id order without walking the rows before it: PostgreSQL's OFFSET reads every index
// entry it skips (30 ms at the median, 87 ms at the 99th percentile for a count=250 page of a million products).
// Anchors are the ids at every STEP-th position, read once in one index scan; a page starts from the anchor at or
// before its offset and skips fewer than STEP rows.
// They hold while no row at or below the last anchored id was deleted or added. The database's kept counts tell both
// (0441, 0490): no deletion since, and as many rows at or below that id as when they were read. That is checked
// after the page is read, so a change before the page's snapshot is seen and the page read again by plain offset.
// Rows added above the last anchor (new ids) only extend the order.
import { sql, type Kysely } from 'kysely';
import type { DialectSql } from '../db/dialect-sql.ts';
import type { StoreSchema } from '../db/schema.ts';

export const ANCHOR_STEP = 1000;
/** Below this offset a plain OFFSET (about 0.1 µs an index entry) costs no more than the check after an anchored page. */
export const ANCHORED_FROM = 5 * ANCHOR_STEP;
/** Anchors are read again at most this often when they stop holding (a table losing rows all the time gets none). */
const READ_AGAIN_AFTER_MS = 10_000;
/** Past this many rows added above the last anchor, the anchors are read again, as the check counts those rows. */
const STALE_AFTER = 100 * ANCHOR_STEP;

/** Where an anchored page starts: the rows from `fromId` on, skipping `skip` of them. */
export interface AnchoredStart {
  readonly fromId: number;
  readonly skip: number;
  readonly anchors: Anchors;
}

interface Anchors {
  /** The id at each position ANCHOR_STEP * i in id order. */
  readonly ids: readonly number[];
  /** The last id when they were read, and how many rows there were, every one at or below it. */
  readonly lastId: number;
  readonly rows: number;
  readonly deleted: number;
}

export interface OffsetAnchors {
  /** Where the page at this offset starts, when anchors are at hand; else undefined (plain OFFSET). */
  start(offset: number): AnchoredStart | undefined;
  /** Whether the anchors a page started from still held after it was read. */
  held(start: AnchoredStart): Promise<boolean>;
}

export function offsetAnchors(
  db: Kysely<StoreSchema>,
  dialect: DialectSql,
  table: string,
  { readAgainAfterMs = READ_AGAIN_AFTER_MS } = {},
): OffsetAnchors {
  let anchors: Anchors | undefined;
  let reading: Promise<void> | undefined;
  let lastRead = Number.NEGATIVE_INFINITY;
  let unkept = false;

  async function read(): Promise<void> {
    const before = await dialect.keptCounts(db, table);
    if (before === undefined) {
      unkept = true;
      return;
    }
    // Each STEP-th row and the last one, whose position is the table's row count in the scan's snapshot.
    const { rows } = await sql<{ id: number; position: string }>`
      select id, position from (
        select id, row_number() over (order by id) as position, lead(id) over (order by id) as next from ${sql.table(table)}
      ) numbered
      where position % ${ANCHOR_STEP} = 1 or next is null
      order by id`.execute(db);
    const after = await dialect.keptCounts(db, table);
    const last = rows.at(-1);
    // A deletion around the scan leaves its snapshot's state unknown: no anchors until the next read.
    if (after === undefined || after.deleted !== before.deleted || last === undefined) return;
    anchors = {
      ids: rows.filter((row) => (Number(row.position) - 1) % ANCHOR_STEP === 0).map((row) => Number(row.id)),
      lastId: Number(last.id),
      rows: Number(last.position),
      deleted: before.deleted,
    };
  }

  function readSoon(): void {
    if (reading !== undefined || unkept || performance.now() - lastRead < readAgainAfterMs) return;
    lastRead = performance.now();
    // The page that asked is answered by plain offset meanwhile; a failed read leaves it that way.
    reading = read()
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      });
  }

  return {
    start(offset) {
      if (offset < ANCHORED_FROM) return undefined;
      if (anchors === undefined) {
        readSoon();
        return undefined;
      }
      const at = Math.min(Math.floor(offset / ANCHOR_STEP), anchors.ids.length - 1);
      const fromId = anchors.ids[at];
      return fromId === undefined ? undefined : { fromId, skip: offset - at * ANCHOR_STEP, anchors };
    },

    async held(start) {
      const { anchors: used } = start;
      const now = await dialect.keptCounts(db, table);
      const { above } = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number | string>().as('above'))
        .where('id', '>', used.lastId)
        .executeTakeFirstOrThrow();
      const holds = now !== undefined && now.deleted === used.deleted && now.rows - Number(above) === used.rows;
      if (!holds || Number(above) > STALE_AFTER) {
        if (anchors === used) anchors = undefined;
        readSoon();
      }
      return holds;
    },
  };
}
