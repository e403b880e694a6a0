// Reads and writes the records of one declared resource: a facade over the compiled statements
// (record-statements.ts), the checks inside a write (write-checks.ts), the write steps (write-steps.ts) and the list
// pages (list-page.ts).
import { followedBy, writeQueueOf, type AfterWrite, type WriteSteps } from '../db/group-commit.ts';
import type { Kysely } from 'kysely';
import type { Row, StoreDatabase, StoreSchema } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { expandRows } from './expansion.ts';
import { listPages, type ListPages } from './list-page.ts';
import { recordStatements } from './record-statements.ts';
import { referrersOf } from './referrers.ts';
import { rowShaper } from './row-shape.ts';
import { writeChecks } from './write-checks.ts';
import { writeSteps } from './write-steps.ts';

export type { Page, ParentScope } from './list-page.ts';

export interface Records extends ListPages {
  /** `db`: a transaction to read in (what it wrote is seen), else the database. */
  get(id: number, expand?: readonly string[], db?: Kysely<StoreSchema>): Promise<Row | undefined>;
  /** `after`: steps of the caller's in the write's transaction, given the write's value. */
  create(values: Row, after?: AfterWrite<Row>): Promise<Row>;
  /**
   * create for a record that is only sent on: its JSON text as the database writes it (SQLite, as list pages
   * are), so the 143 fields of a product are not made into an object and serialised again; else the record.
   */
  createAnswer(values: Row, after?: AfterWrite<Row | string>): Promise<Row | string>;
  update(id: number, values: Row, after?: AfterWrite<Row | undefined>): Promise<Row | undefined>;
  remove(id: number): Promise<boolean>;
}

const then = <T>(steps: WriteSteps<T>, after: AfterWrite<T> | undefined): WriteSteps<T> =>
  after === undefined ? steps : followedBy(steps, after);

const recordsByDatabase = new WeakMap<StoreDatabase, Map<ResourceDeclaration, Records>>();

/** The records of a resource on a database: made once, as making them compiles statements (routes ask on requests). */
export function recordsOf(database: StoreDatabase, resource: ResourceDeclaration): Records {
  let known = recordsByDatabase.get(database);
  if (known === undefined) recordsByDatabase.set(database, (known = new Map<ResourceDeclaration, Records>()));
  let records = known.get(resource);
  if (records === undefined) known.set(resource, (records = makeRecords(database, resource)));
  return records;
}

function makeRecords(database: StoreDatabase, resource: ResourceDeclaration): Records {
  const writes = writeQueueOf(database);
  const statements = recordStatements(database, resource);
  const steps = writeSteps(statements, writeChecks(statements));
  const toJson = rowShaper(resource);
  const announced = <T>(value: T): T => {
    steps.hooksNow()?.committed();
    return value;
  };
  return {
    ...listPages(statements),

    async get(id, expandNames = [], db = database.db) {
      const found = (await db.executeQuery<Row>(statements.byId(id))).rows[0];
      const row = found === undefined ? undefined : toJson(found);
      if (row !== undefined && expandNames.length > 0) await expandRows(db, resource, [row], expandNames);
      return row;
    },

    create: (values, after) => writes.run(() => then(steps.create(values, false) as WriteSteps<Row>, after)).then(announced),
    createAnswer: (values, after) => writes.run(() => then(steps.create(values, true), after)).then(announced),
    update: (id, values, after) => writes.run(() => then(steps.update(id, values), after)).then(announced),
    remove: (id) =>
      writes
        .run(() => steps.remove(id))
        .catch(async (error: unknown) => {
          if (!(error instanceof ApiError) || error.statusCode !== 409) throw error;
          const referrers = await referrersOf(database, resource, id);
          if (referrers.length === 0) throw error;
          throw new ApiError(
            409,
            `${resource.singular} ${id} is still referred to by ${referrers.join('; ')}: change or delete those first`,
          );
        }),
  };
}
