// Runs bulk jobs in the background of each instance, one at a time: it claims a queued job (or one whose holder
// stopped renewing its lease, having died) and runs it while renewing the lease at every step. Shutting down,
// it stops the job between two steps and gives the lease back, so the next start goes on with it at once.
// Every hour it also removes jobs finished longer ago than their files are kept, with their files.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { StoreDatabase } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import type { BulkJob } from './bulk-job.ts';
import { JobInterrupted, type JobControl } from './job-control.ts';
import type { JobFiles } from './job-files.ts';
import type { JobTable } from './job-table.ts';
import { runExport } from './run-export.ts';
import { runImport, type ImportOptions } from './run-import.ts';
import { databaseNow } from '../db/database-clock.ts';

export interface RunnerOptions {
  /** How often the table is looked at when no job was started here (other instances' jobs, expired leases). */
  pollMs?: number;
  log: FastifyBaseLogger;
  import: ImportOptions;
  /** Rows an export reads at a time. */
  exportPage?: number;
  /** How long a finished job (and its file) is kept. */
  keptMs: number;
}

const PRUNE_EVERY_MS = 3600 * 1000;

export interface JobRunner {
  /** Looks for work now (a job was just added). */
  wake(): void;
  stop(): Promise<void>;
}

export function startJobRunner(database: StoreDatabase, table: JobTable, files: JobFiles, options: RunnerOptions): JobRunner {
  const owner = randomBytes(8).toString('hex');
  const pollMs = options.pollMs ?? 2000;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let working: Promise<void> | undefined;
  let again = false;

  function controlOf(job: BulkJob): JobControl {
    return {
      async checkpoint(progress) {
        if (!(await table.checkpoint(job.id, owner, progress))) throw new JobInterrupted('another instance holds the job now');
        if (stopping) throw new JobInterrupted('this instance is stopping');
      },
    };
  }

  async function run(job: BulkJob): Promise<void> {
    try {
      const control = controlOf(job);
      const progress =
        job.type === 'export'
          ? await runExport(database, job, files.result(job), control, options.exportPage)
          : await runImport(job, { input: files.input(job), result: files.result(job) }, control, options.import);
      await table.finish(job.id, owner, { state: 'completed', progress });
      if (job.type === 'import') await rm(files.input(job), { force: true });
    } catch (error) {
      if (error instanceof JobInterrupted) {
        if (stopping) await table.release(job.id, owner).catch(() => undefined);
        return;
      }
      // A client's fault shows as it is; anything else is logged and shown without internals.
      const shown = error instanceof ApiError ? error.message : 'the job stopped on an internal error; start it again';
      if (!(error instanceof ApiError)) options.log.error({ err: error, job: job.id }, 'bulk job failed');
      await table.finish(job.id, owner, { state: 'failed', error: shown }).catch(() => undefined);
    }
  }

  // Several instances may prune the same jobs: removing a file or row twice harms nothing.
  let prunedAt = 0;
  async function prune(): Promise<void> {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = Date.now();
    for (const job of await table.finishedBefore(new Date(databaseNow(database) - options.keptMs).toISOString(), 500)) {
      await rm(files.result(job), { force: true });
      await rm(files.input(job), { force: true });
      await table.remove(job.id);
    }
  }

  async function work(): Promise<void> {
    await prune();
    do {
      again = false;
      for (const id of await table.claimable(5)) {
        if (stopping) return;
        const job = await table.claim(id, owner);
        if (job === undefined) continue;
        await run(job);
        again = true;
      }
    } while (again && !stopping);
  }

  function tick(): void {
    if (stopping) return;
    if (working !== undefined) {
      again = true;
      return;
    }
    clearTimeout(timer);
    working = work()
      .catch((error: unknown) => options.log.warn({ err: error }, 'bulk jobs: looking for work failed'))
      .finally(() => {
        working = undefined;
        if (!stopping) timer = setTimeout(tick, pollMs);
      });
  }

  tick();
  return {
    wake: tick,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await working;
    },
  };
}
