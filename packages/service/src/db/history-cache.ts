// get_test_history's answers reused while a domain's history stands still. Every change to a domain's
// finished tests raises its revision (finishTest, purge), so an answer kept under a revision is reused
// after a primary-key read of it, instead of reading, converting and serialising up to 200 rows again.
// Each API process keeps its own, as JSON in UTF-8, written to the socket as it is.
import type { DialectName } from '@app/database';
import { sql, type Kysely } from 'kysely';
import { domainRevision } from './domain-revisions.ts';
import type { ServiceSchema } from './tables.ts';
import { testHistory, type HistoryFilter } from './tests.ts';

/** Bytes kept over all answers: about 1,300 pages of 200 entries. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** A larger answer (a very large `limit`) is made afresh each time rather than crowd out the rest. */
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
export async function historyAtRevision(db: Kysely<ServiceSchema>, dialect: DialectName, domain: string, page: HistoryPage): Promise<{ revision: number; rows: HistoryRow[] }> {
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
  return { revision, rows: rows.filter((row) => row.hash_id !== null).map(({ hash_id, created_at, undelegated, overall_result }) => ({ hash_id, created_at, undelegated, overall_result })) };
}

interface Entry {
  revision: number;
  /** Each page asked for, by answer shape and paging, as JSON. */
  pages: Map<string, Buffer>;
  bytes: number;
}

export class HistoryCache {
  readonly #db: Kysely<ServiceSchema>;
  readonly #dialect: DialectName;
  /** By domain, in order of last use: the first is dropped first. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(db: Kysely<ServiceSchema>, dialect: DialectName) {
    this.#db = db;
    this.#dialect = dialect;
  }

  /**
   * One page of a domain's history as JSON, in the shape `answer` gives it (`shape` names that shape):
   * kept, after checking the domain's revision, or read (one round trip on PostgreSQL) and kept.
   */
  async answer(domain: string, page: HistoryPage, shape: string, answer: (rows: HistoryRow[]) => unknown): Promise<Buffer> {
    const key = `${shape} ${page.filter} ${page.offset} ${page.limit}`;
    const entry = this.#entries.get(domain);
    const kept = entry?.pages.get(key);
    if (entry !== undefined && kept !== undefined && (await domainRevision(this.#db, domain)) === entry.revision) {
      this.#entries.delete(domain);
      this.#entries.set(domain, entry);
      return kept;
    }
    const read = await historyAtRevision(this.#db, this.#dialect, domain, page);
    const bytes = Buffer.from(JSON.stringify(answer(read.rows)), 'utf8');
    if (bytes.length <= MAX_ANSWER_BYTES) this.#keep(domain, read.revision, key, bytes);
    return bytes;
  }

  /** Bytes kept. */
  get size(): number {
    return this.#bytes;
  }

  #keep(domain: string, revision: number, key: string, bytes: Buffer): void {
    let entry = this.#entries.get(domain);
    // Pages kept under another revision go: the domain moved, or another call read it meanwhile (if
    // that one was newer, the next call finds out).
    if (entry !== undefined && entry.revision !== revision) {
      this.#drop(domain, entry);
      entry = undefined;
    }
    entry ??= { revision, pages: new Map(), bytes: 0 };
    this.#entries.delete(domain);
    this.#entries.set(domain, entry);
    const old = entry.pages.get(key);
    if (old !== undefined) this.#resize(entry, -old.length);
    entry.pages.set(key, bytes);
    this.#resize(entry, bytes.length);
    for (const [other, kept] of this.#entries) {
      if (this.#bytes <= MAX_CACHED_BYTES) break;
      this.#drop(other, kept);
    }
  }

  #resize(entry: Entry, change: number): void {
    entry.bytes += change;
    this.#bytes += change;
  }

  #drop(domain: string, entry: Entry): void {
    this.#entries.delete(domain);
    this.#bytes -= entry.bytes;
  }
}
