// What records check inside a write's own transaction, where no other write can slip in between (the write path's
// checks asked before, before-write.ts, see the request): the records it refers to exist, the parent it joins is
// not closed, a tree does not close a loop, and the database's own refusals become clear 409s.
import type { CompiledQuery, QueryResult } from 'kysely';
import { constraintViolation } from '../db/constraint-violation.ts';
import type { WriteSteps } from '../db/group-commit.ts';
import { textOf, type Row } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { resourceNamed } from '../model/registry.ts';
import { withParameters, type RecordStatements } from './record-statements.ts';

export interface WriteChecks {
  /** The field naming a parent that closes for good (a cart's line's cart), when the resource has one. */
  readonly closingField: string | undefined;
  readonly hasReferences: boolean;
  /** The records these values refer to exist. */
  references(values: Row): WriteSteps<void>;
  /** None of these parents is closed; each is locked until the commit. */
  open(parentIds: readonly unknown[]): WriteSteps<void>;
  /** The parent record `id` has and the one `values` gives it are open. */
  openAround(id: number, values: Row): WriteSteps<void>;
  /** Whether these values move a record in its resource's tree (a category's parent). */
  changesTree(values: Row): boolean;
  /** Record `id` does not become its own ancestor. */
  noLoop(id: number, values: Row): WriteSteps<void>;
  /** Runs one statement, turning the database's constraint errors into clear 409s. */
  guarded(query: CompiledQuery): WriteSteps<QueryResult<Row>>;
}

export function writeChecks(statements: RecordStatements): WriteChecks {
  const { database, resource, dialect, idLookup, byId } = statements;
  const { db } = database;
  const references = Object.entries(resource.fields).flatMap(([name, field]) =>
    field.references === undefined ? [] : [{ name, target: resourceNamed(field.references) }],
  );

  // A parent that closes for good (a cart once it is an order). Its row is locked first (before the reference checks,
  // in the order place_order locks: cart, then products), so a close racing this write either waits for it or is
  // seen by it. With one writer (SQLite) the plain read is enough.
  const closing = (() => {
    const closedWith = resource.closedWith;
    const target = closedWith === undefined ? undefined : resource.fields[closedWith.field]?.references;
    if (closedWith === undefined || target === undefined) return undefined;
    const parent = resourceNamed(target);
    const lookup = dialect.lockForWrite(db.selectFrom(parent.table).select(['id', closedWith.closedBy]).where('id', '=', 0)).compile();
    return { field: closedWith.field, column: closedWith.closedBy, singular: parent.singular, lookup };
  })();

  // Fields pointing at records of the same resource (a category's parent): no record may become its own ancestor.
  const selfReferences = references.filter(({ target }) => target.name === resource.name).map(({ name }) => name);
  const parentLookups = new Map(
    selfReferences.map((name) => [name, dialect.lockForWrite(db.selectFrom(resource.table).select(name).where('id', '=', 0)).compile()]),
  );
  // One tree change at a time (see the dialect's treeLock).
  const treeLock = dialect.treeLock(db, resource.table);

  function* open(parentIds: readonly unknown[]): WriteSteps<void> {
    if (closing === undefined) return;
    for (const id of new Set(parentIds)) {
      if (id === undefined || id === null) continue;
      const closedBy = (yield withParameters(closing.lookup, [id])).rows[0]?.[closing.column];
      if (closedBy !== null && closedBy !== undefined) {
        throw new ApiError(
          409,
          `${closing.singular} ${textOf(id)} is closed (its ${closing.column} is ${textOf(closedBy)}): it takes no more ${resource.name}`,
        );
      }
    }
  }

  return {
    closingField: closing?.field,
    hasReferences: references.length > 0,
    *references(values) {
      for (const { name, target } of references) {
        const value = values[name];
        if (value === undefined || value === null) continue;
        const found = (yield withParameters(idLookup(target.table), [value])).rows[0];
        if (found === undefined) throw new ApiError(409, `${name}: there is no ${target.singular} with id ${value as number}`);
      }
    },
    open,
    *openAround(id, values) {
      if (closing === undefined) return;
      const current = (yield byId(id)).rows[0];
      yield* open([current?.[closing.field], values[closing.field]]);
    },
    changesTree: (values) => selfReferences.some((name) => values[name] !== undefined && values[name] !== null),
    *noLoop(id, values) {
      if (treeLock !== undefined) yield treeLock;
      for (const name of selfReferences) {
        const lookup = parentLookups.get(name);
        let ancestor = values[name];
        for (let hops = 0; lookup !== undefined && ancestor !== undefined && ancestor !== null; hops += 1) {
          // A loop already in the data (made before this check) would otherwise never end.
          if (Number(ancestor) === id || hops > 10_000)
            throw new ApiError(409, `${name}: ${resource.singular} ${id} would become its own ancestor`);
          ancestor = (yield withParameters(lookup, [ancestor])).rows[0]?.[name];
        }
      }
    },
    *guarded(query) {
      try {
        return yield query;
      } catch (error) {
        // A referenced row deleted between the check and the write still lands here as a clear 409.
        const kind = constraintViolation(error);
        if (kind === 'foreign-key')
          throw new ApiError(409, `${resource.singular}: a referenced record does not exist, or other records still refer to this one`);
        if (kind === 'unique') throw new ApiError(409, `${resource.singular}: a record with these values already exists`);
        throw error;
      }
    },
  };
}
