// Where a job's files go: `bulk/` in the store's data dir, named by the job's random file key (never by its id
// alone, so a name cannot be guessed). Instances that share jobs share the data dir, as they share auth.key.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreDatabase } from '../db/schema.ts';
import type { BulkJob, JobType } from './bulk-job.ts';

export interface JobFiles {
  /** An import's lines as uploaded. */
  input(job: Pick<BulkJob, 'fileKey'>): string;
  /** An export's NDJSON (gzip), or an import's result lines. */
  result(job: Pick<BulkJob, 'fileKey' | 'type'>): string;
}

/** `dataDir` undefined: a fresh temporary folder (nothing then survives a restart, as with a random auth key). */
export function jobFiles(dataDir: string | undefined): JobFiles {
  let folder: string | undefined;
  const dir = () => {
    if (folder === undefined) {
      folder = dataDir === undefined ? mkdtempSync(join(tmpdir(), 'store-bulk-')) : join(dataDir, 'bulk');
      mkdirSync(folder, { recursive: true, mode: 0o700 });
    }
    return folder;
  };
  return {
    input: (job) => join(dir(), `${job.fileKey}.input.ndjson`),
    result: (job) => join(dir(), job.type === 'export' ? `${job.fileKey}.export.ndjson.gz` : `${job.fileKey}.results.ndjson`),
  };
}

/** Every job's files as they are now, to remove once the jobs are gone (`store reset`); removing one twice is harmless. */
export async function jobFilesRemover(database: StoreDatabase, files: JobFiles): Promise<() => Promise<void>> {
  const jobs = await database.db.selectFrom('bulk_operations').select(['file_key', 'type']).execute();
  const paths = jobs.flatMap((job) => {
    const named = { fileKey: String(job.file_key), type: job.type as JobType };
    return [files.result(named), files.input(named)];
  });
  return async () => {
    for (const path of paths) await rm(path, { force: true });
  };
}
