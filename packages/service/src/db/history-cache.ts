// get_test_history's answers reused while a domain's history stands still. Every change to a domain's
// finished tests raises its revision (finishTest, purge), so an answer kept under a revision is reused
// after a primary-key read of it, instead of reading, converting and serialising up to 200 rows again.
// Each API process keeps its own, as JSON in UTF-8, written to the socket as it is.
import type { DialectName } from '@app/database';
import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { domainRevision } from './domain-revisions.ts';
import type { ServiceSchema } from './tables.ts';
import { testHistory, type HistoryFilter } from './tests.ts';

/** Bytes kept over all answers: about 1,300 pages of 200 entries. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** A larger answer is not kept. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface HistoryPage {
  filter: HistoryFilter;
  offset: number;
  limit: number;
}

export type HistoryRow = Awaited<ReturnType<typeof testHistory>>[number];

/**
 * One page of a domain's history with the domain's revision, read no later than the rows (so the
 * page is at least as new as the revision it is kept under). On PostgreSQL one statement (one
 * snapshot, one round trip) reads both; elsewhere the revision is read first.
 */
export async function historyAtRevision(
  db: Kysely<ServiceSchema>,
  dialect: DialectName,
  domain: string,
  page: HistoryPage,
): Promise<{ revision: number; rows: HistoryRow[] }> {
  if (dialect !== 'postgres') {
    const revision = await domainRevision(db, domain);
    return { revision, rows: await testHistory(db, domain, page.filter, page.offset, page.limit) };
  }
  const filter = page.filter === 'all' ? sql`` : sql`and undelegated = ${page.filter === 'undelegated'}`;
  const { rows } = await sql<HistoryRow & { revision: number }>`
    select r.revision, t.hash_id, t.created_at, t.undelegated, t.overall_result
    from (select coalesce((select revision from dh_domain_revision where domain = ${domain}), 0) as revision) as r
    left join lateral (
      select hash_id, created_at, undelegated, overall_result, id from dh_test
      where domain = ${domain} and progress = 100 ${filter}
      order by created_at desc, id desc limit ${page.limit} offset ${page.offset}
    ) as t on true
    order by t.created_at desc, t.id desc`.execute(db);
  const revision = Number(rows[0]?.revision ?? 0);
  return {
    revision,
    rows: rows
      .filter((row) => row.hash_id !== null)
      .map(({ hash_id, created_at, undelegated, overall_result }) => ({ hash_id, created_at, undelegated, overall_result })),
  };
}

/** One kept page: its JSON, and the domain's revision it was read at. */
interface KeptPage {
  revision: number;
  bytes: Buffer;
}

export class HistoryCache {
  readonly #db: Kysely<ServiceSchema>;
  readonly #dialect: DialectName;
  /** By domain and page; the least recently used go first. A page of a domain that moved stays until read again or dropped. */
  readonly #pages = new LRUCache<string, KeptPage>({
    maxSize: MAX_CACHED_BYTES,
    maxEntrySize: MAX_ANSWER_BYTES,
    sizeCalculation: (page) => page.bytes.length,
  });

  constructor(db: Kysely<ServiceSchema>, dialect: DialectName) {
    this.#db = db;
    this.#dialect = dialect;
  }

  /**
   * One page of a domain's history as JSON, in the shape `answer` gives it (`shape` names that shape):
   * kept, after checking the domain's revision, or read (one round trip on PostgreSQL) and kept.
   */
  async answer(domain: string, page: HistoryPage, shape: string, answer: (rows: HistoryRow[]) => unknown): Promise<Buffer> {
    const key = `${domain}\n${shape} ${page.filter} ${page.offset} ${page.limit}`;
    const kept = this.#pages.get(key);
    if (kept !== undefined && (await domainRevision(this.#db, domain)) === kept.revision) return kept.bytes;
    const read = await historyAtRevision(this.#db, this.#dialect, domain, page);
    const bytes = Buffer.from(JSON.stringify(answer(read.rows)), 'utf8');
    // Larger than MAX_ANSWER_BYTES (a very large `limit`): made afresh each time rather than crowd out the rest.
    this.#pages.set(key, { revision: read.revision, bytes });
    return bytes;
  }

  /** Bytes kept. */
  get size(): number {
    return this.#pages.calculatedSize;
  }
}
