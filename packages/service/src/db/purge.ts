// `dns-service purge`: finished tests older than a cut-off go, with their results, query logs and
// chains, a few hundred per transaction, so a service and its agents keep running meanwhile (each
// transaction holds its row locks for milliseconds). `keepLast` spares each domain's newest tests.
import { sql, type Kysely } from 'kysely';
import { raiseBatchRevisions } from './batches.ts';
import { raiseDomainRevisions } from './domain-revisions.ts';
import type { ServiceSchema } from './tables.ts';

export interface PurgeOptions {
  /** Finished tests created before this are removed. */
  before: Date;
  /** Each domain keeps its newest this many finished tests, however old. */
  keepLast?: number;
  /** Tests per transaction (default 500). */
  chunk?: number;
  /** Told after each transaction: tests removed so far. */
  onProgress?: (removed: number) => void;
}

export interface PurgeOutcome {
  tests: number;
  transactions: number;
  batches: number;
}

/** A duration such as `180d`, `12h` or `4w`, in milliseconds; undefined when it is not one. */
export function parseAge(text: string): number | undefined {
  const match = /^(\d+)([hdw])$/.exec(text.trim());
  if (match === null) return undefined;
  return Number(match[1]) * { h: 3600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 'h' | 'd' | 'w'];
}

/** The ids to remove, found once: finished, older than the cut-off, and not among a domain's newest. */
async function doomedIds(db: Kysely<ServiceSchema>, before: string, keepLast: number): Promise<number[]> {
  if (keepLast <= 0) {
    const rows = await db
      .selectFrom('dh_test')
      .select('id')
      .where('progress', '=', 100)
      .where('created_at', '<', before)
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }
  // ROW_NUMBER() over each domain's finished tests, newest first: PostgreSQL, MariaDB 10.2+ and SQLite 3.25+.
  const rows = await sql<{ id: number }>`
    select id from (
      select id, created_at, row_number() over (partition by domain order by created_at desc, id desc) as newest
      from dh_test where progress = 100
    ) ranked
    where created_at < ${before} and newest > ${keepLast}
    order by id`.execute(db);
  return rows.rows.map((r) => Number(r.id));
}

export async function purgeTests(db: Kysely<ServiceSchema>, options: PurgeOptions): Promise<PurgeOutcome> {
  const before = options.before.toISOString();
  const chunk = options.chunk ?? 500;
  const ids = await doomedIds(db, before, options.keepLast ?? 0);
  let transactions = 0;
  for (let from = 0; from < ids.length; from += chunk) {
    const part = ids.slice(from, from + chunk);
    // Children first: SQLite enforces no cascade unless told to.
    await db.transaction().execute(async (trx) => {
      const batches = await trx
        .selectFrom('dh_test')
        .select('batch_id')
        .distinct()
        .where('id', 'in', part)
        .where('batch_id', 'is not', null)
        .execute();
      const domains = await trx.selectFrom('dh_test').select('domain').distinct().where('id', 'in', part).execute();
      await trx.deleteFrom('dh_result_entry').where('test_id', 'in', part).execute();
      await trx.deleteFrom('dh_test_result').where('test_id', 'in', part).execute();
      await trx.deleteFrom('dh_test_queries').where('test_id', 'in', part).execute();
      await trx.deleteFrom('dh_test_chain').where('test_id', 'in', part).execute();
      await trx.deleteFrom('dh_test').where('id', 'in', part).where('progress', '=', 100).execute();
      // After the tests, in the order finishTest locks them: test rows, then the batch's, then the domain's.
      await raiseBatchRevisions(
        trx,
        batches.flatMap((b) => (b.batch_id === null ? [] : [b.batch_id])),
      );
      await raiseDomainRevisions(
        trx,
        domains.map((d) => d.domain),
      );
    });
    transactions++;
    options.onProgress?.(Math.min(from + chunk, ids.length));
    // Lets other work on this process's pool (none in the CLI) and the server breathe between chunks.
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Batches older than the cut-off that no test refers to any more.
  const emptied = await db
    .deleteFrom('dh_batch')
    .where('created_at', '<', before)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('dh_test').select('dh_test.id').whereRef('dh_test.batch_id', '=', 'dh_batch.id'))))
    .executeTakeFirst();
  return { tests: ids.length, transactions, batches: Number(emptied.numDeletedRows) };
}
