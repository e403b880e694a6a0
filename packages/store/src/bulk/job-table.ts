// The bulk_operations table: jobs added, read, and claimed with a lease (a compare-and-set on the row, as the
// webhook outbox leases its subscriptions), so across any number of instances one at a time runs a job.
import type { StoreDatabase } from '../db/schema.ts';
import { dialectSqlOf } from '../db/dialects/of.ts';
import { activeStates, jobOf, type BulkJob, type JobType } from './bulk-job.ts';
import { databaseNow } from '../db/database-clock.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export interface NewJob {
  storeId: number;
  type: JobType;
  resource: string;
  query: string | null;
  rowsTotal: number | null;
  fileKey: string;
  createdBy: string;
}

/** Where a running job stands, written with each renewal of its lease. */
export interface Progress {
  rowsDone: number;
  rowsFailed: number;
  resultBytes: number;
}

export interface JobTable {
  /**
   * Adds the job unless the store has `maxActive` queued or running already (then answers how many): counted and
   * added with the store's row locked, so two jobs started together cannot both pass.
   */
  add(job: NewJob, maxActive: number): Promise<BulkJob | { active: number }>;
  remove(id: number): Promise<void>;
  /** `storeId` left out: whichever store's (a signed link names the job alone). */
  get(id: number, storeId?: number): Promise<BulkJob | undefined>;
  /** Newest first, at most `limit`. */
  list(storeId: number, resources: readonly string[], limit: number): Promise<BulkJob[]>;
  /** Finished jobs whose files are kept no longer, oldest first. */
  finishedBefore(at: string, limit: number): Promise<BulkJob[]>;
  /** Queued jobs, and running ones whose holder's lease ran out (it stopped or died), oldest first. */
  claimable(limit: number): Promise<number[]>;
  /** Takes the job's lease; false when another instance holds it or it is done. */
  claim(id: number, owner: string): Promise<BulkJob | undefined>;
  /** Records progress and renews the lease; false when the lease was lost. */
  checkpoint(id: number, owner: string, progress: Progress): Promise<boolean>;
  /** Gives the lease back with the job still running, for the next start to go on with it. */
  release(id: number, owner: string): Promise<void>;
  /** `progress` left out: as last recorded. */
  finish(id: number, owner: string, outcome: { state: 'completed' | 'failed'; error?: string; progress?: Progress }): Promise<boolean>;
}

export function jobTable(database: StoreDatabase, leaseMs: number): JobTable {
  const { db } = database;
  const dialect = dialectSqlOf(database);
  const owned = (id: number, owner: string) => db.updateTable('bulk_operations').where('id', '=', id).where('lease_owner', '=', owner);
  const progressColumns = (progress: Progress) => ({
    rows_done: progress.rowsDone,
    rows_failed: progress.rowsFailed,
    result_bytes: progress.resultBytes,
  });
  return {
    async add(job, maxActive) {
      const row = {
        store_id: job.storeId,
        type: job.type,
        resource: job.resource,
        query: job.query,
        state: 'queued',
        rows_total: job.rowsTotal,
        rows_done: 0,
        rows_failed: 0,
        result_bytes: 0,
        file_key: job.fileKey,
        created_by: job.createdBy,
        created_at: iso(databaseNow(database)),
      };
      return db.transaction().execute(async (trx) => {
        // SQLite writes one at a time anyway; the others wait here for a job being added to the same store.
        await dialect.lockForWrite(trx.selectFrom('stores').select('id').where('id', '=', job.storeId)).execute();
        const counted = await trx
          .selectFrom('bulk_operations')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('store_id', '=', job.storeId)
          .where('state', 'in', activeStates)
          .executeTakeFirstOrThrow();
        const active = Number(counted.n);
        if (active >= maxActive) return { active };
        const id = await dialect.insertRow(trx, 'bulk_operations', row);
        return jobOf({ ...row, id, error: null, started_at: null, finished_at: null });
      });
    },
    async remove(id) {
      await db.deleteFrom('bulk_operations').where('id', '=', id).execute();
    },
    async get(id, storeId) {
      const row = await db
        .selectFrom('bulk_operations')
        .selectAll()
        .where('id', '=', id)
        .$if(storeId !== undefined, (q) => q.where('store_id', '=', storeId ?? 0))
        .executeTakeFirst();
      return row === undefined ? undefined : jobOf(row);
    },
    async list(storeId, resources, limit) {
      if (resources.length === 0) return [];
      const rows = await db
        .selectFrom('bulk_operations')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('resource', 'in', resources)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(jobOf);
    },
    async finishedBefore(at, limit) {
      const rows = await db
        .selectFrom('bulk_operations')
        .selectAll()
        .where('state', 'in', ['completed', 'failed'])
        .where('finished_at', '<', at)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(jobOf);
    },
    async claimable(limit) {
      const now = iso(databaseNow(database));
      const rows = await db
        .selectFrom('bulk_operations')
        .select('id')
        .where('state', 'in', activeStates)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => Number(row.id));
    },
    async claim(id, owner) {
      const now = databaseNow(database);
      const result = await db
        .updateTable('bulk_operations')
        .set((eb) => ({
          state: 'running',
          lease_owner: owner,
          lease_until: iso(now + leaseMs),
          started_at: eb.fn.coalesce('started_at', eb.val(iso(now))),
        }))
        .where('id', '=', id)
        .where('state', 'in', activeStates)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', iso(now))]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return undefined;
      const row = await db.selectFrom('bulk_operations').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? undefined : jobOf(row);
    },
    async checkpoint(id, owner, progress) {
      const result = await owned(id, owner)
        .set({ ...progressColumns(progress), lease_until: iso(databaseNow(database) + leaseMs) })
        .where('state', '=', 'running')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async release(id, owner) {
      await owned(id, owner).set({ lease_owner: null, lease_until: null }).execute();
    },
    async finish(id, owner, outcome) {
      const result = await owned(id, owner)
        .set({
          ...(outcome.progress === undefined ? {} : progressColumns(outcome.progress)),
          state: outcome.state,
          error: outcome.error ?? null,
          finished_at: iso(databaseNow(database)),
          lease_owner: null,
          lease_until: null,
        })
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
