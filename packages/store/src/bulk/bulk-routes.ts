// Our extension (not the platform's): bulk jobs. POST /bulk_operations starts an export (a resource and a list
// query) or an import (NDJSON lines); GET reads a job's state and progress, and once it is done a signed,
// expiring link to its file (the export's records, or one result per imported line), fetched without a token.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { allows } from '../auth/scopes.ts';
import type { StoreDatabase } from '../db/schema.ts';
import { publicOrigin } from '../http/allowed-hosts.ts';
import { parseRecordId } from '../http/record-id.ts';
import { receiveUpload, StreamedUpload } from '../http/streamed-upload.ts';
import { bulkLimitsOf, planName, readPlan, type Plan } from '../limits/plans.ts';
import { ApiError } from '../model/api-error.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { resourceNamed, resources } from '../model/registry.ts';
import { recordsOf } from '../records/records.ts';
import { jobAnswer, type BulkJob, type JobAnswer } from './bulk-job.ts';
import { downloadLinks, LINK_LIFETIME_MS, type DownloadLinks } from './download-link.ts';
import { exportQuery } from './export-query.ts';
import type { LineOptions } from './import-line.ts';
import { jobFiles, type JobFiles } from './job-files.ts';
import { jobResource, jobTypeOf, startedBy } from './job-request.ts';
import { startJobRunner, type JobRunner } from './job-runner.ts';
import { jobTable, type JobTable } from './job-table.ts';
import { LineSplitter } from './ndjson-lines.ts';

export interface BulkSettings {
  /** False: this instance runs no jobs (another one does). */
  run?: boolean;
  pollMs?: number;
  /** How long a lease holds without renewal: a job whose instance died is taken over after it. */
  leaseMs?: number;
  /** Rows an export reads at a time (1000). */
  exportPage?: number;
  /** How long an import's upload may go without a byte (30 s), and take in all (10 minutes). */
  uploadIdleMs?: number;
  uploadTotalMs?: number;
}

export interface BulkOptions extends LineOptions {
  database: StoreDatabase;
  authKey: Uint8Array;
  now: () => number;
  /** Files go under `bulk/` there; undefined: a temporary folder. */
  dataDir: string | undefined;
  settings: BulkSettings;
  /** After an import changed records of a resource. */
  written: (resource: string) => void;
}

/** Largest upload an import takes. */
export const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;
/** How long a finished job's file is offered. */
export const FILE_KEPT_MS = 7 * 24 * 3600 * 1000;
const NDJSON = 'application/x-ndjson';
const MAX_LISTED = 100;
const EXPORT_BODY = 'An export takes a JSON body: {"type": "export", "resource": ..., "query": ...}';

/** An import's upload, in its job's file: its lines counted as it arrived. */
class ImportUpload extends StreamedUpload {
  readonly fileKey: string;
  readonly lines: number;
  constructor(upload: { path: string; bytes: number; sha256: string }, fileKey: string, lines: number) {
    super(upload);
    this.fileKey = fileKey;
    this.lines = lines;
  }

  /** True once a job holds the file. */
  taken = false;
}

/** What the bulk routes share: their options, the job table, the jobs' files and links, and this instance's runner. */
interface Bulk {
  readonly options: BulkOptions;
  readonly table: JobTable;
  readonly files: JobFiles;
  readonly links: DownloadLinks;
  runner: JobRunner | undefined;
}

export function bulkRoutes(app: FastifyInstance, options: BulkOptions): Promise<void> {
  const bulk: Bulk = {
    options,
    table: jobTable(options.database, options.settings.leaseMs ?? 30_000),
    files: jobFiles(options.dataDir),
    links: downloadLinks(options.authKey, options.now),
    runner: undefined,
  };
  importUploads(app, bulk);
  jobRoutes(app, bulk);
  resultRoute(app, bulk);
  if (options.settings.run !== false) runJobs(app, bulk);
  return Promise.resolve();
}

/** The plan's limits (a plan the code does not know gets the smallest). */
async function limitsOf(database: StoreDatabase, storeId: number) {
  const plan = (await readPlan(database.db, storeId)) ?? 'steel';
  return { plan, ...bulkLimitsOf(plan) };
}
type Limits = Awaited<ReturnType<typeof limitsOf>>;

function tooMany(plan: Plan, concurrentJobs: number, active: number): ApiError {
  const jobs = `${concurrentJobs} bulk job${concurrentJobs > 1 ? 's' : ''}`;
  return new ApiError(
    429,
    `The ${planName(plan)} plan runs at most ${jobs} at a time and ${active} ${active === 1 ? 'is' : 'are'} queued or running; start this one when one is done`,
    { 'retry-after': '10' },
  );
}

/**
 * The only body allowed past the API's limit: an import's lines, streamed to their file as they arrive and counted
 * on the way. What the request asks is checked before a byte is read, so a refused import costs nothing.
 */
function importUploads(app: FastifyInstance, bulk: Bulk): void {
  /** Import uploads arriving now, per store. */
  const uploading = new Map<number, number>();
  app.addContentTypeParser(NDJSON, async (request: FastifyRequest, payload: Readable) => {
    const asked = request.query as Record<string, unknown>;
    const type = jobTypeOf(asked.type ?? 'import');
    if (type === 'export') throw new ApiError(400, EXPORT_BODY);
    const resource = jobResource(asked.resource, type, request.principal);
    const storeId = request.principal?.storeId ?? 1;
    const limits = await limitsOf(bulk.options.database, storeId);
    // Uploads beyond the jobs the plan runs at once could not all become jobs; each holds a connection and a file.
    const receiving = uploading.get(storeId) ?? 0;
    if (receiving >= limits.concurrentJobs)
      throw new ApiError(
        429,
        `The ${planName(limits.plan)} plan takes at most ${limits.concurrentJobs} import upload${limits.concurrentJobs > 1 ? 's' : ''} at a time and ${receiving} ${receiving === 1 ? 'is' : 'are'} arriving; send this one when one is in`,
        { 'retry-after': '10' },
      );
    uploading.set(storeId, receiving + 1);
    try {
      return await receiveImport(bulk, request, payload, resource, limits);
    } finally {
      const left = (uploading.get(storeId) ?? 1) - 1;
      if (left > 0) uploading.set(storeId, left);
      else uploading.delete(storeId);
    }
  });
  // An upload no job took (refused, or answered from an earlier request with its Idempotency-Key) goes.
  app.addHook('onResponse', async (request) => {
    if (request.body instanceof ImportUpload && !request.body.taken) await rm(request.body.path, { force: true });
  });
}

async function receiveImport(
  bulk: Bulk,
  request: FastifyRequest,
  payload: Readable,
  resource: ResourceDeclaration,
  limits: Limits,
): Promise<ImportUpload> {
  const { settings } = bulk.options;
  const fileKey = randomBytes(16).toString('hex');
  const path = bulk.files.input({ fileKey });
  const splitter = new LineSplitter(0);
  let lines = 0;
  const overPlan = () =>
    new ApiError(
      413,
      `The import holds more than ${limits.maxRows} lines; the ${planName(limits.plan)} plan imports at most ${limits.maxRows} in one job`,
    );
  const upload = await receiveUpload(payload, path, {
    maxBytes: IMPORT_BODY_LIMIT,
    declaredBytes: request.headers['content-length'],
    idleMs: settings.uploadIdleMs ?? 30_000,
    totalMs: settings.uploadTotalMs ?? 600_000,
    watch: (chunk) => {
      lines += splitter.count(chunk);
      if (lines > limits.maxRows) throw overPlan();
    },
  });
  lines += splitter.end().length;
  if (lines === 0 || lines > limits.maxRows) {
    await rm(path, { force: true });
    throw lines === 0 ? new ApiError(400, `The body holds no lines; send one ${resource.singular} as JSON a line`) : overPlan();
  }
  return new ImportUpload({ path, ...upload }, fileKey, lines);
}

/** A job as the API answers it, with the signed link to its file while one is offered. */
function answerOf(app: FastifyInstance, bulk: Bulk, request: FastifyRequest, job: BulkJob): JobAnswer {
  const { now } = bulk.options;
  if (job.state !== 'completed' || job.finishedAt === null) return jobAnswer(job, undefined);
  const expiresMs = Math.min(now() + LINK_LIFETIME_MS, Date.parse(job.finishedAt) + FILE_KEPT_MS);
  if (expiresMs <= now()) return jobAnswer(job, undefined);
  const url = `${publicOrigin(request)}${app.prefix}/bulk_operations/${job.id}/result?${bulk.links.sign(job.id, expiresMs)}`;
  return jobAnswer(job, { url, expiresAt: new Date(Math.floor(expiresMs / 1000) * 1000).toISOString() });
}

/** Starting a job, and reading the jobs. */
function jobRoutes(app: FastifyInstance, bulk: Bulk): void {
  const { database } = bulk.options;
  const { table } = bulk;
  const answer = (request: FastifyRequest, job: BulkJob) => answerOf(app, bulk, request, job);

  app.post('/bulk_operations', async (request, reply) => {
    const principal = request.principal;
    const storeId = principal?.storeId ?? 1;
    const upload = request.body instanceof ImportUpload ? request.body : undefined;
    const asked = upload !== undefined ? (request.query as Record<string, unknown>) : ((request.body ?? {}) as Record<string, unknown>);
    if (upload === undefined && (typeof request.body !== 'object' || request.body === null || Array.isArray(request.body)))
      throw new ApiError(400, 'The body is a JSON object: {"type": "export", "resource": ..., "query": ...}');
    const type = jobTypeOf(asked.type ?? (upload !== undefined ? 'import' : undefined));
    const resource = jobResource(asked.resource, type, principal);
    const limits = await limitsOf(database, storeId);
    let added: BulkJob | { active: number };
    if (type === 'export') {
      if (upload !== undefined) throw new ApiError(400, EXPORT_BODY);
      const text = asked.query ?? '';
      if (typeof text !== 'string')
        throw new ApiError(400, 'query: a query string as the list endpoint takes, e.g. "updated_at=gt:2026-01-01&sort=updated_at"');
      const query = exportQuery(resource, text);
      const { total } = await recordsOf(database, resource).list({ ...query, count: 1, page: 1, after: undefined });
      if (total > limits.maxRows)
        throw new ApiError(
          400,
          `The query matches ${total} ${resource.name}; the ${planName(limits.plan)} plan exports at most ${limits.maxRows} in one job: narrow the query`,
        );
      added = await table.add(
        {
          storeId,
          type,
          resource: resource.name,
          query: text,
          rowsTotal: total,
          fileKey: randomBytes(16).toString('hex'),
          createdBy: startedBy(principal),
        },
        limits.concurrentJobs,
      );
    } else {
      if (upload === undefined)
        throw new ApiError(
          400,
          `An import takes its lines as ${NDJSON}, one ${resource.singular} a line, with ?type=import&resource=${resource.name}`,
        );
      added = await table.add(
        {
          storeId,
          type,
          resource: resource.name,
          query: null,
          rowsTotal: upload.lines,
          fileKey: upload.fileKey,
          createdBy: startedBy(principal),
        },
        limits.concurrentJobs,
      );
      upload.taken = 'id' in added;
    }
    if (!('id' in added)) throw tooMany(limits.plan, limits.concurrentJobs, added.active);
    bulk.runner?.wake();
    return reply.code(202).header('location', `${app.prefix}/bulk_operations/${added.id}`).send(answer(request, added));
  });

  const jobIn = async (request: FastifyRequest): Promise<BulkJob> => {
    const text = (request.params as { id: string }).id;
    const id = parseRecordId(text);
    const job = id === undefined ? undefined : await table.get(id, request.principal?.storeId ?? 1);
    if (job === undefined) throw new ApiError(404, `There is no bulk operation with id ${text.slice(0, 20)}`);
    if (!allows(request.principal?.scopes ?? [], resourceNamed(job.resource).scope, false))
      throw new ApiError(403, `Reading bulk operation ${job.id} needs the read scope of ${job.resource}`);
    return job;
  };

  app.get('/bulk_operations', async (request, reply) => {
    const scopes = request.principal?.scopes ?? [];
    const readable = resources.filter((r) => allows(scopes, r.scope, false)).map((r) => r.name);
    const jobs = await table.list(request.principal?.storeId ?? 1, readable, MAX_LISTED);
    void reply.header('cache-control', 'no-store');
    return { bulk_operations: jobs.map((job) => answer(request, job)) };
  });

  app.get('/bulk_operations/:id', async (request, reply) => {
    const job = await jobIn(request);
    void reply.header('cache-control', 'no-store');
    return answer(request, job);
  });
}

/** A finished job's file, by its signed link. */
function resultRoute(app: FastifyInstance, bulk: Bulk): void {
  // The link is the credential: no token, and so no call counted against a plan.
  app.get('/bulk_operations/:id/result', { config: { public: true, notRateLimited: true } }, async (request, reply) => {
    const id = parseRecordId((request.params as { id: string }).id);
    if (id === undefined) throw new ApiError(404, 'There is no such bulk operation');
    bulk.links.check(id, request.query as Record<string, unknown>);
    const job = await bulk.table.get(id);
    if (job === undefined) throw new ApiError(404, `There is no bulk operation with id ${id}`);
    if (job.state !== 'completed') throw new ApiError(404, `Bulk operation ${id} has no result yet; it is ${job.state}`);
    const file = bulk.files.result(job);
    const size = await stat(file).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) throw new ApiError(410, `The file of bulk operation ${id} is no longer kept; start the ${job.type} again`);
    const name = `${job.resource}-${job.type}-${job.id}${job.type === 'export' ? '.ndjson.gz' : '-results.ndjson'}`;
    void reply
      .header('cache-control', 'private, no-store')
      .header('content-length', size)
      .header('content-disposition', `attachment; filename="${name}"`)
      .type(job.type === 'export' ? 'application/gzip' : `${NDJSON}; charset=utf-8`);
    return reply.send(createReadStream(file));
  });
}

/** This instance's job runner, from the app's start to its close. */
function runJobs(app: FastifyInstance, bulk: Bulk): void {
  const { options } = bulk;
  app.addHook('onReady', () => {
    bulk.runner = startJobRunner(options.database, bulk.table, bulk.files, {
      log: app.log,
      keptMs: FILE_KEPT_MS,
      ...(options.settings.pollMs === undefined ? {} : { pollMs: options.settings.pollMs }),
      ...(options.settings.exportPage === undefined ? {} : { exportPage: options.settings.exportPage }),
      import: { writes: options.writes, written: options.written },
    });
    return Promise.resolve();
  });
  app.addHook('onClose', async () => {
    await bulk.runner?.stop();
  });
}
