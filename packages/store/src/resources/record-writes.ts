// The one write path of a record, whoever writes it (POST and PUT, importMany, an import line, the demo seed):
// encrypted fields encrypted, the before-write checks asked, then the records written (their write listeners
// told). The routes keep only what is HTTP's: who may call, the body's parsing and schema, the status and headers.
import type { AfterWrite } from '../db/group-commit.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { bodyProblems } from '../http/body-validation.ts';
import { parseRecordId } from '../http/record-id.ts';
import { ApiError } from '../model/api-error.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { createSchema, requiredFields } from '../model/json-schema.ts';
import { beforeWriteChecks, type BeforeWriteCheck, type PendingWrite } from '../records/before-write.ts';
import { recordsOf } from '../records/records.ts';
import { columnValues, encryptedFieldsOf } from '../records/row-shape.ts';

export interface RecordWritesOptions {
  /** Encrypts a field kept encrypted at rest. */
  encrypt: (plain: string) => string;
  /** Asked in this order before each write. */
  checks: readonly BeforeWriteCheck[];
}

export interface Upserted<T> {
  created: boolean;
  row: T;
}

/**
 * The writes of a record; `after` (given to POST's and PUT's) adds the caller's steps to the write's own transaction,
 * given what the write answers: how an Idempotency-Key's answer commits with its effect.
 */
export interface RecordWrites {
  /**
   * POST: creates, or, when the body's `id` names an existing record, applies the body to it (`created` false).
   * An `id` that names no record is ignored and a new record made, as on the platform.
   */
  upsert(resource: ResourceDeclaration, body: Row | null, serverValues?: Row): Promise<{ created: boolean; row: Row }>;
  /** upsert for a record that is only sent on: a new one may come as its JSON text (Records.createAnswer). */
  upsertAnswer(
    resource: ResourceDeclaration,
    body: Row | null,
    serverValues?: Row,
    after?: AfterWrite<Upserted<Row | string>>,
  ): Promise<Upserted<Row | string>>;
  /** PUT: the body applied to record `id`; undefined when there is none (an id below 1 names none). */
  update(
    resource: ResourceDeclaration,
    id: number,
    body: Row,
    serverValues?: Row,
    after?: AfterWrite<Row | undefined>,
  ): Promise<Row | undefined>;
  /** DELETE: false when there was no such record. */
  remove(resource: ResourceDeclaration, id: number): Promise<boolean>;
  /** upsert of a body no request's schema checked (an import line, the demo seed): its problems are a 400 first. */
  upsertUnchecked(resource: ResourceDeclaration, body: unknown): Promise<{ created: boolean; row: Row }>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's write path of records, for writes that come without a request of their own (the demo seed). */
    recordWrites: RecordWrites;
  }
}

/** Required fields missing from a body that creates a record, all named at once. */
export function checkRequired(resource: ResourceDeclaration, values: Row): void {
  const missing = requiredFields(resource).filter((name) => values[name] === undefined || values[name] === null);
  if (missing.length > 0) throw new ApiError(400, missing.map((name) => `${name}: is required`).join('; '));
}

/** The problems of a body that came without a request, named as `POST /{resource}` would name them. */
function createProblems(resource: ResourceDeclaration, body: unknown): string[] {
  return bodyProblems('POST', `/${resource.path}`, () => createSchema(resource), body);
}

function* nothing(): Generator<never, void> {}

export function recordWrites(database: StoreDatabase, options: RecordWritesOptions): RecordWrites {
  const checkOf = beforeWriteChecks(options.checks);

  /** The write's values once encrypted and checked: the body's writable fields, then the server's. */
  async function checked(
    resource: ResourceDeclaration,
    kind: PendingWrite['kind'],
    id: number | undefined,
    given: Row | null,
    serverValues: Row,
  ): Promise<Row> {
    const body: Row = { ...given };
    for (const name of encryptedFieldsOf(resource)) {
      const value = body[name];
      if (typeof value === 'string' && value !== '') body[name] = options.encrypt(value);
    }
    const write: PendingWrite = { resource, kind, id, body, serverValues };
    const check = checkOf(resource);
    const waiting = check === undefined ? undefined : check(write);
    if (waiting !== undefined) await waiting;
    return kind === 'remove' ? {} : { ...columnValues(resource, body), ...write.serverValues };
  }

  async function upsertWith<T>(
    resource: ResourceDeclaration,
    given: Row | null,
    serverValues: Row,
    create: (values: Row, after: AfterWrite<T> | undefined) => Promise<T>,
    after?: AfterWrite<Upserted<Row | T>>,
  ): Promise<Upserted<Row | T>> {
    const values = await checked(resource, 'upsert', undefined, given, serverValues);
    const records = recordsOf(database, resource);
    const id = typeof given?.id === 'number' ? parseRecordId(given.id) : undefined;
    if (id !== undefined) {
      // An id naming no record writes nothing: nothing to add to it.
      const updated = await records.update(
        id,
        values,
        after && ((row) => (row === undefined ? nothing() : after({ created: false, row }))),
      );
      if (updated !== undefined) return { created: false, row: updated };
    }
    checkRequired(resource, values);
    return { created: true, row: await create(values, after && ((row) => after({ created: true, row }))) };
  }

  return {
    upsert: (resource, body, serverValues = {}) =>
      upsertWith(resource, body, serverValues, (values) => recordsOf(database, resource).create(values)),
    upsertAnswer: (resource, body, serverValues = {}, after = undefined) =>
      upsertWith<Row | string>(
        resource,
        body,
        serverValues,
        (values, afterCreate) => recordsOf(database, resource).createAnswer(values, afterCreate),
        after,
      ),
    async update(resource, id, body, serverValues = {}, after = undefined) {
      const values = await checked(resource, 'update', id, body, serverValues);
      return id < 1 ? undefined : recordsOf(database, resource).update(id, values, after);
    },
    async remove(resource, id) {
      await checked(resource, 'remove', id, {}, {});
      return id >= 1 && (await recordsOf(database, resource).remove(id));
    },
    upsertUnchecked(resource, body) {
      const problems = createProblems(resource, body);
      if (problems.length > 0) return Promise.reject(new ApiError(400, problems.join('; ')));
      return upsertWith(resource, body as Row, {}, (values) => recordsOf(database, resource).create(values));
    },
  };
}
