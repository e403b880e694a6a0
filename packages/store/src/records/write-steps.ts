// One record's create, update and removal as the statements of a write (db/group-commit.ts runs them in a shared
// transaction): the checks made inside it, the write, the written record read back where there is no RETURNING,
// and the write listeners' steps (webhooks) in the same transaction.
import { databaseNow } from '../db/database-clock.ts';
import type { WriteSteps } from '../db/group-commit.ts';
import type { Row } from '../db/schema.ts';
import { JSON_COLUMN, withParameters, type RecordStatements } from './record-statements.ts';
import { rowShaper } from './row-shape.ts';
import type { WriteChecks } from './write-checks.ts';
import { writeHooksOf, type ResourceWriteHooks } from './write-listener.ts';

export interface RecordWriteSteps {
  /** `asText`: the created record as the JSON text the database writes, where it does (see Records.createAnswer). */
  create(values: Row, asText: boolean): WriteSteps<Row | string>;
  update(id: number, values: Row): WriteSteps<Row | undefined>;
  remove(id: number): WriteSteps<boolean>;
  /** The listeners' hooks of the writes now; tell them a write committed. */
  hooksNow(): ResourceWriteHooks | undefined;
}

// Declared once per resource, not per call: V8 makes every new generator function at some cost (about 2 µs).
export function writeSteps(statements: RecordStatements, checks: WriteChecks): RecordWriteSteps {
  const { database, resource, dialect, wholeColumns, byId, insert, answerById } = statements;
  const { db } = database;
  const { returning } = dialect;
  const toJson = rowShaper(resource);
  const { closingField } = checks;
  const shaped = (row: Row | undefined) => (row === undefined ? undefined : toJson(row));
  // What listeners (webhooks) do in these writes' transactions; nothing for most resources.
  const hooksNow = writeHooksOf(database, resource);

  function* readBack(id: number): WriteSteps<Row | undefined> {
    return shaped((yield byId(id)).rows[0]);
  }

  function* create(values: Row, asText: boolean): WriteSteps<Row | string> {
    if (closingField !== undefined) yield* checks.open([values[closingField]]);
    const events = hooksNow();
    if (checks.hasReferences) yield* checks.references(values);
    const now = isoNow(databaseNow(database));
    const row = { ...values, created_at: now, updated_at: now };
    let created: Row | undefined;
    if (returning) {
      const [inserted] = (yield* checks.guarded(insert(row))).rows;
      if (inserted === undefined) throw new Error(`inserting a ${resource.singular} returned no row`);
      created = toJson(inserted);
    } else if (asText && answerById !== undefined) {
      const { insertId } = yield* checks.guarded(insert(row));
      const text = (yield withParameters(answerById, [Number(insertId)])).rows[0]?.[JSON_COLUMN];
      if (typeof text !== 'string') throw new Error(`${resource.singular} ${String(insertId)} vanished right after its creation`);
      if (events !== undefined) yield* events.created(text);
      return text;
    } else {
      const { insertId } = yield* checks.guarded(insert(row));
      created = yield* readBack(Number(insertId));
      if (created === undefined) throw new Error(`${resource.singular} ${String(insertId)} vanished right after its creation`);
    }
    if (events !== undefined) yield* events.created(created);
    return created;
  }

  function* update(id: number, values: Row): WriteSteps<Row | undefined> {
    if (closingField !== undefined) yield* checks.openAround(id, values);
    const events = hooksNow();
    if (checks.hasReferences) yield* checks.references(values);
    if (checks.changesTree(values)) yield* checks.noLoop(id, values);
    const before = events?.needsBefore === true ? yield* readBack(id) : undefined;
    const statement = db
      .updateTable(resource.table)
      .set({ ...values, updated_at: isoNow(databaseNow(database)) })
      .where('id', '=', id);
    let updated: Row | undefined;
    if (returning)
      updated = shaped(
        (yield* checks.guarded((wholeColumns === undefined ? statement.returningAll() : statement.returning(wholeColumns)).compile()))
          .rows[0],
      );
    else {
      yield* checks.guarded(statement.compile());
      updated = yield* readBack(id);
    }
    if (events !== undefined && updated !== undefined) yield* events.updated(before, updated);
    return updated;
  }

  function* remove(id: number): WriteSteps<boolean> {
    if (closingField !== undefined) yield* checks.openAround(id, {});
    const result = yield* checks.guarded(db.deleteFrom(resource.table).where('id', '=', id).compile());
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  return { create, update, remove, hooksNow };
}

// Formatting a date takes about a microsecond; writes landing in the same millisecond share one text.
let lastIso = { ms: Number.NaN, text: '' };
function isoNow(ms: number): string {
  if (ms !== lastIso.ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}
