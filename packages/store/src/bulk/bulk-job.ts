// A bulk job as its row holds it, and as GET /bulk_operations answers it.
import type { Row } from '../db/schema.ts';

export const jobTypes = ['export', 'import'] as const;
export type JobType = (typeof jobTypes)[number];

/** queued: waiting for an instance; running: one holds its lease; completed and failed are final. */
export type JobState = 'queued' | 'running' | 'completed' | 'failed';
export const activeStates: readonly JobState[] = ['queued', 'running'];

export interface BulkJob {
  id: number;
  storeId: number;
  type: JobType;
  resource: string;
  /** An export's list query (a query string); null for imports. */
  query: string | null;
  state: JobState;
  rowsTotal: number | null;
  rowsDone: number;
  rowsFailed: number;
  resultBytes: number;
  fileKey: string;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const count = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export function jobOf(row: Row): BulkJob {
  return {
    id: Number(row.id),
    storeId: Number(row.store_id),
    type: row.type as JobType,
    resource: String(row.resource),
    query: text(row.query),
    state: row.state as JobState,
    rowsTotal: count(row.rows_total),
    rowsDone: Number(row.rows_done),
    rowsFailed: Number(row.rows_failed),
    resultBytes: Number(row.result_bytes),
    fileKey: String(row.file_key),
    error: text(row.error),
    createdAt: String(row.created_at),
    startedAt: text(row.started_at),
    finishedAt: text(row.finished_at),
  };
}

/** The job as the API shows it; `result` once it is completed (a signed link, see download-link.ts). */
export interface JobAnswer {
  id: number;
  type: JobType;
  resource: string;
  query: string | null;
  state: JobState;
  rows_total: number | null;
  rows_done: number;
  rows_failed: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  result_url: string | null;
  result_url_expires_at: string | null;
}

export function jobAnswer(job: BulkJob, link: { url: string; expiresAt: string } | undefined): JobAnswer {
  return {
    id: job.id,
    type: job.type,
    resource: job.resource,
    query: job.query,
    state: job.state,
    rows_total: job.rowsTotal,
    rows_done: job.rowsDone,
    rows_failed: job.rowsFailed,
    error: job.error,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
    result_url: link?.url ?? null,
    result_url_expires_at: link?.expiresAt ?? null,
  };
}
