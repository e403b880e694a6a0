// get_batch_job_result answers reused while a batch stands still. Every change to a batch's finished
// tests raises its revision (finishTest, purge), so an answer kept under a revision is reused after a
// primary-key read of it, instead of reading and sending out 10,000 ids again: a batch that has not
// moved since the last poll costs the next poll almost nothing. Each API process keeps its own.
import type { DialectName } from '@app/database';
import type { Kysely } from 'kysely';
import { batchRevision, batchStatusAtRevision, type BatchStatus } from './batches.ts';
import type { ServiceSchema } from './tables.ts';

/** Ids kept over all cached answers (each about 50 bytes in memory): a few big batches, or many small ones. */
const MAX_CACHED_IDS = 200_000;

interface Entry {
  revision: number;
  status: BatchStatus;
  /** The status as JSON, made when first asked for. */
  json?: string;
}

export class BatchStatusCache {
  readonly #db: Kysely<ServiceSchema>;
  readonly #dialect: DialectName;
  /** In order of last use: the first is dropped first. */
  readonly #entries = new Map<number, Entry>();
  #ids = 0;

  constructor(db: Kysely<ServiceSchema>, dialect: DialectName) {
    this.#db = db;
    this.#dialect = dialect;
  }

  /** The batch's answer, undefined for no such batch. */
  async status(batchId: number): Promise<BatchStatus | undefined> {
    return (await this.#entry(batchId))?.status;
  }

  /** The batch's answer as JSON text (serialised once per revision), undefined for no such batch. */
  async json(batchId: number): Promise<string | undefined> {
    const entry = await this.#entry(batchId);
    if (entry === undefined) return undefined;
    entry.json ??= JSON.stringify(entry.status);
    return entry.json;
  }

  async #entry(batchId: number): Promise<Entry | undefined> {
    const cached = this.#entries.get(batchId);
    if (cached !== undefined) {
      const revision = await batchRevision(this.#db, batchId);
      if (revision === cached.revision) {
        this.#entries.delete(batchId);
        this.#entries.set(batchId, cached);
        return cached;
      }
      this.#drop(batchId);
      if (revision === undefined) return undefined;
    }
    const read = await batchStatusAtRevision(this.#db, this.#dialect, batchId);
    if (read === undefined) return undefined;
    this.#keep(batchId, read);
    return read;
  }

  #keep(batchId: number, entry: Entry): void {
    this.#drop(batchId);
    const size = entry.status.finished_test_ids.length;
    if (size > MAX_CACHED_IDS) return;
    for (const [id, old] of this.#entries) {
      if (this.#ids + size <= MAX_CACHED_IDS) break;
      this.#drop(id, old);
    }
    this.#entries.set(batchId, entry);
    this.#ids += size;
  }

  #drop(batchId: number, entry = this.#entries.get(batchId)): void {
    if (entry === undefined) return;
    this.#entries.delete(batchId);
    this.#ids -= entry.status.finished_test_ids.length;
  }
}
