// Bulk jobs in the OpenAPI document: what POST /bulk_operations takes (a JSON body for exports, NDJSON lines for
// imports), a job as GET answers it, and the signed result link, which needs no token.
import type { JsonSchema } from '../model/json-schema.ts';
import { jobTypes } from './bulk-job.ts';
import { IMPORT_BODY_LIMIT } from './bulk-routes.ts';
import { MAX_LINE_BYTES } from './import-line.ts';

const TAG = 'bulk_operations';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema, example?: unknown) => ({
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), { description: 'Error', ...json(ref('Error')) }]));
const security = [{ token: [] }];
const id = { name: 'id', in: 'path', required: true, description: 'id of the bulk operation', schema: { type: 'integer', minimum: 1 } };

export const bulkOperationSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'type',
    'resource',
    'query',
    'state',
    'rows_total',
    'rows_done',
    'rows_failed',
    'error',
    'created_at',
    'started_at',
    'finished_at',
    'result_url',
    'result_url_expires_at',
  ],
  properties: {
    id: { type: 'integer' },
    type: { type: 'string', enum: [...jobTypes] },
    resource: { type: 'string' },
    query: { type: ['string', 'null'], description: "an export's list query" },
    state: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
    rows_total: { type: ['integer', 'null'], description: 'records the export matched when it started, or lines the import holds' },
    rows_done: { type: 'integer' },
    rows_failed: { type: 'integer', description: 'import lines answered with an error' },
    error: { type: ['string', 'null'], description: 'why a failed job stopped' },
    created_at: { type: 'string', format: 'date-time' },
    started_at: { type: ['string', 'null'], format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
    result_url: {
      type: ['string', 'null'],
      format: 'uri',
      description: 'once completed: a signed link to the file, fetched without a token until result_url_expires_at',
    },
    result_url_expires_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

const exportBody: JsonSchema = {
  type: 'object',
  required: ['type', 'resource'],
  properties: {
    type: { type: 'string', enum: ['export'] },
    resource: { type: 'string', description: 'a resource name, as in its path' },
    query: {
      type: 'string',
      description: "the list endpoint's filters, sort and fields as a query string (no page, count, after or expand)",
    },
  },
};

export function bulkPaths(): Record<string, unknown> {
  return {
    '/bulk_operations': {
      post: {
        tags: [TAG],
        security,
        summary:
          'Our extension: start an export (JSON body) or an import (NDJSON lines, with ?type=import&resource=...), run in the background',
        parameters: [
          { name: 'type', in: 'query', description: 'import, with an NDJSON body', schema: { type: 'string', enum: ['import'] } },
          { name: 'resource', in: 'query', description: 'the resource an NDJSON body imports into', schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: exportBody,
              example: { type: 'export', resource: 'products', query: 'updated_at=gt:2026-01-01T00:00:00Z&sort=updated_at' },
            },
            'application/x-ndjson': {
              schema: {
                type: 'string',
                description: `one record a line as POST /{resource} takes it (with the id of an existing record: an update); at most ${MAX_LINE_BYTES} bytes a line, ${IMPORT_BODY_LIMIT} in all`,
              },
            },
          },
        },
        responses: {
          202: { description: 'Queued; Location names the job', ...json(ref('BulkOperation')) },
          ...errors(400, 401, 403, 413, 429),
        },
      },
      get: {
        tags: [TAG],
        security,
        summary: 'Our extension: the latest 100 bulk operations, newest first, of resources the caller may read',
        responses: {
          200: {
            description: 'Jobs',
            ...json({
              type: 'object',
              required: ['bulk_operations'],
              properties: { bulk_operations: { type: 'array', items: ref('BulkOperation') } },
            }),
          },
          ...errors(401, 429),
        },
      },
    },
    '/bulk_operations/{id}': {
      get: {
        tags: [TAG],
        security,
        summary: 'Our extension: a bulk operation, its state and progress, and once completed a fresh signed link to its file',
        parameters: [id],
        responses: { 200: { description: 'The job', ...json(ref('BulkOperation')) }, ...errors(401, 403, 404, 429) },
      },
    },
    '/bulk_operations/{id}/result': {
      get: {
        tags: [TAG],
        security: [],
        summary:
          "Our extension: a completed job's file at its signed link (no token): an export's records as NDJSON (gzip), or an import's result per line as NDJSON",
        parameters: [
          id,
          { name: 'expires', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'signature', in: 'query', required: true, schema: { type: 'string' } },
        ],
        responses: {
          200: {
            description: 'The file',
            content: {
              'application/gzip': { schema: { type: 'string', format: 'binary' } },
              'application/x-ndjson': { schema: { type: 'string' } },
            },
          },
          ...errors(403, 404, 410),
        },
      },
    },
  };
}
