// get_test_history's answers reused while a domain's history stands still. Every change to a domain's
// finished tests raises its revision (finishTest, purge), so an answer kept under a revision is reused
// after a primary-key read of it, instead of reading, converting and serialising up to 200 rows again.
// Each API process keeps its own, as JSON in UTF-8, written to the socket as it is.
import type { Kysely } from 'kysely';
import { domainRevision } from './domain-revisions.ts';
import type { ServiceSchema } from './tables.ts';

/** Bytes kept over all answers: about 1,300 pages of 200 entries. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** A larger answer (a very large `limit`) is made afresh each time rather than crowd out the rest. */
const MAX_ANSWER_BYTES = 1024 * 1024;

interface Entry {
  revision: number;
  /** Each page asked for (filter, offset, limit) as JSON. */
  pages: Map<string, Buffer>;
  bytes: number;
}

export class HistoryCache {
  readonly #db: Kysely<ServiceSchema>;
  /** By domain, in order of last use: the first is dropped first. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(db: Kysely<ServiceSchema>) {
    this.#db = db;
  }

  /**
   * The answer for one page of a domain's history as JSON: kept, or made by `read` and kept. The
   * revision is read before `read` runs, so a kept answer is at least as new as its revision.
   */
  async answer(domain: string, page: string, read: () => Promise<unknown>): Promise<Buffer> {
    const revision = await domainRevision(this.#db, domain);
    let entry = this.#entries.get(domain);
    if (entry !== undefined && entry.revision !== revision) {
      this.#drop(domain, entry);
      entry = undefined;
    }
    const kept = entry?.pages.get(page);
    if (entry !== undefined && kept !== undefined) {
      this.#entries.delete(domain);
      this.#entries.set(domain, entry);
      return kept;
    }
    const bytes = Buffer.from(JSON.stringify(await read()), 'utf8');
    if (bytes.length <= MAX_ANSWER_BYTES) this.#keep(domain, revision, page, bytes);
    return bytes;
  }

  #keep(domain: string, revision: number, page: string, bytes: Buffer): void {
    let entry = this.#entries.get(domain);
    // Another call may have kept answers under another revision meanwhile: the last to finish replaces
    // them, and if its revision is the older one, the next call finds that out.
    if (entry !== undefined && entry.revision !== revision) {
      this.#drop(domain, entry);
      entry = undefined;
    }
    entry ??= { revision, pages: new Map(), bytes: 0 };
    this.#entries.delete(domain);
    this.#entries.set(domain, entry);
    const old = entry.pages.get(page);
    if (old !== undefined) this.#resize(entry, -old.length);
    entry.pages.set(page, bytes);
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

  /** Bytes kept (for tests). */
  get size(): number {
    return this.#bytes;
  }
}
