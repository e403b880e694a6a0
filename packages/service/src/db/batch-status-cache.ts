// Batch answers (get_batch_job_result's and batch_status's) reused while a batch stands still. Every
// change to a batch's tests' states raises its revision (claimNextTest, finishTest, purge), so an
// answer kept under a revision is reused after a primary-key read of it, instead of reading and
// sending out 10,000 ids again: a batch that has not moved since the last poll costs the next poll
// almost nothing. Each API process keeps its own.
import type { DialectName } from '@app/database';
import type { Kysely } from 'kysely';
import { batchProgressAtRevision, batchRevision, legacyStatus, type BatchProgress, type BatchStatus } from './batches.ts';
import type { ServiceSchema } from './tables.ts';

/** Ids kept over all cached answers (each about 50 bytes in memory): a few big batches, or many small ones. */
const MAX_CACHED_IDS = 200_000;

/** Which id lists batch_status is asked to include. */
export interface BatchLists {
  waiting?: boolean;
  running?: boolean;
  finished?: boolean;
}

/** batch_status's answer. */
export interface BatchStatusAnswer {
  waiting_count: number;
  running_count: number;
  finished_count: number;
  waiting_tests?: string[];
  running_tests?: string[];
  finished_tests?: string[];
}

interface Entry {
  revision: number;
  progress: BatchProgress;
  /** get_batch_job_result's answer, made when first asked for. */
  legacy?: BatchStatus;
  /** Each answer shape as JSON in UTF-8, made when first asked for: 'legacy', or batch_status's lists as 'w r f' flags. */
  json: Map<string, Buffer>;
}

function idCount(progress: BatchProgress): number {
  return progress.waiting.length + progress.running.length + progress.finished.length;
}

/** batch_status's answer from a batch's tests by state. */
export function batchStatusAnswer(progress: BatchProgress, lists: BatchLists): BatchStatusAnswer {
  return {
    waiting_count: progress.waiting.length,
    running_count: progress.running.length,
    finished_count: progress.finished.length,
    ...(lists.waiting === true ? { waiting_tests: progress.waiting } : {}),
    ...(lists.running === true ? { running_tests: progress.running } : {}),
    ...(lists.finished === true ? { finished_tests: progress.finished } : {}),
  };
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

  /** get_batch_job_result's answer, undefined for no such batch. */
  async status(batchId: number): Promise<BatchStatus | undefined> {
    const entry = await this.#entry(batchId);
    if (entry === undefined) return undefined;
    entry.legacy ??= legacyStatus(entry.progress);
    return entry.legacy;
  }

  /** get_batch_job_result's answer as JSON in UTF-8 (serialised and encoded once per revision), undefined for no such batch. */
  async json(batchId: number): Promise<Buffer | undefined> {
    return this.#json(batchId, 'legacy', (progress) => legacyStatus(progress));
  }

  /** batch_status's answer, undefined for no such batch. */
  async progress(batchId: number, lists: BatchLists): Promise<BatchStatusAnswer | undefined> {
    const entry = await this.#entry(batchId);
    return entry === undefined ? undefined : batchStatusAnswer(entry.progress, lists);
  }

  /** batch_status's answer as JSON in UTF-8 (serialised and encoded once per revision and shape), undefined for no such batch. */
  async progressJson(batchId: number, lists: BatchLists): Promise<Buffer | undefined> {
    const shape = [lists.waiting, lists.running, lists.finished].map((l) => (l === true ? '1' : '0')).join('');
    return this.#json(batchId, shape, (progress) => batchStatusAnswer(progress, lists));
  }

  async #json(batchId: number, shape: string, answer: (progress: BatchProgress) => unknown): Promise<Buffer | undefined> {
    const entry = await this.#entry(batchId);
    if (entry === undefined) return undefined;
    let bytes = entry.json.get(shape);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(answer(entry.progress)), 'utf8');
      entry.json.set(shape, bytes);
    }
    return bytes;
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
    const read = await batchProgressAtRevision(this.#db, this.#dialect, batchId);
    if (read === undefined) return undefined;
    const entry: Entry = { ...read, json: new Map() };
    this.#keep(batchId, entry);
    return entry;
  }

  #keep(batchId: number, entry: Entry): void {
    this.#drop(batchId);
    const size = idCount(entry.progress);
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
    this.#ids -= idCount(entry.progress);
  }
}
