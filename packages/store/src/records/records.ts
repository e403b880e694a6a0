// Reads and writes the records of one declared resource, with the list query language applied in SQL.
import { sql, type CompiledQuery, type RawBuilder, type Expression, type QueryResult, type SqlBool } from 'kysely';
import { constraintViolation } from '../db/constraint-violation.ts';
import { writeQueueOf, type WriteSteps } from '../db/group-commit.ts';
import { textOf, type Row, type StoreDatabase } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { columnsOf, type NestedDeclaration, type ResourceDeclaration } from '../model/declaration.ts';
import { keysetPageable, type FilterValue, type ListQuery } from '../model/query-language.ts';
import { resourceNamed } from '../model/registry.ts';
import { dialectSqlOf } from './dialects/of.ts';
import { expandRows } from './expansion.ts';
import { afterExpression, filtersExpression, type Where } from './filters.ts';
import { STORED_JSON_TABLES } from '../db/postgres-json.ts';
import { referrersOf } from './referrers.ts';
import { fromColumn, rowShaper } from './row-shape.ts';
import { writeHooksOf } from './write-listener.ts';
import { databaseNow } from '../db/database-clock.ts';

/** Narrows a list to the children of one parent record (`/products/5/categories`). */
export interface ParentScope {
  readonly nested: NestedDeclaration;
  readonly parentId: number;
}

export interface Page {
  readonly total: number;
  readonly rows: Row[];
  /** Each record of the page as JSON text, when the database wrote it (SQLite); `rows` is then empty. */
  readonly texts?: readonly string[];
  /** With texts, where the database keeps them: each one's hash, or null where it was written live. */
  readonly textHashes?: readonly (string | null)[];
  readonly hasMore: boolean;
  /** The position after the last row, when the sort allows keyset paging. */
  readonly nextAfter: FilterValue[] | undefined;
}

export interface Records {
  /** `uncounted`: total is left at -1 (an export walking every page needs no count of each). */
  list(query: ListQuery, scope?: ParentScope, options?: { uncounted?: boolean }): Promise<Page>;
  /** The records of these ids that exist, in the list's order. */
  many(ids: readonly number[], query: ListQuery): Promise<Row[]>;
  get(id: number, expand?: readonly string[]): Promise<Row | undefined>;
  create(values: Row): Promise<Row>;
  /**
   * create for a record that is only sent on: its JSON text as the database writes it (SQLite, as list pages
   * are), so the 143 fields of a product are not made into an object and serialised again; else the record.
   */
  createAnswer(values: Row): Promise<Row | string>;
  update(id: number, values: Row): Promise<Row | undefined>;
  remove(id: number): Promise<boolean>;
}

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
  const { db } = database;
  const dialect = dialectSqlOf(database);
  const writes = writeQueueOf(database);
  const table = resource.table;
  const toJson = rowShaper(resource);
  // A table that keeps its rows' JSON (0460_record_json) is read by its declared columns, not `*`: a record read or
  // written here is shaped from those, and the kept text (4 KB for a product) would be read and sent for nothing.
  const declaredColumns = database.dialect === 'postgres' && STORED_JSON_TABLES.includes(table) ? columnsOf(resource) : undefined;

  function scoped(eb: Where, scope: ParentScope | undefined): Expression<SqlBool> {
    if (scope === undefined) return sql<SqlBool>`1 = 1`;
    const { nested, parentId } = scope;
    if (nested.kind === 'children') return eb(eb.ref(nested.foreignKey), '=', parentId);
    return eb(eb.ref('id'), 'in', db.selectFrom(nested.table).select(nested.childKey).where(nested.parentKey, '=', parentId));
  }

  // `select id` (or every column) of one row by id, compiled once per table.
  const idLookups = new Map<string, CompiledQuery>();
  function idLookup(of: string, allColumns = false): CompiledQuery {
    const key = `${of}${allColumns ? ' *' : ''}`;
    let compiled = idLookups.get(key);
    if (compiled === undefined) {
      const select = db.selectFrom(of).where('id', '=', 0);
      compiled = (allColumns ? (of === table && declaredColumns !== undefined ? select.select(declaredColumns) : select.selectAll()) : select.select('id')).compile();
      idLookups.set(key, compiled);
    }
    return compiled;
  }

  const references = Object.entries(resource.fields).flatMap(([name, field]) => (field.references === undefined ? [] : [{ name, target: resourceNamed(field.references) }]));

  function* checkReferences(values: Row): WriteSteps<void> {
    for (const { name, target } of references) {
      const value = values[name];
      if (value === undefined || value === null) continue;
      const found = (yield withParameters(idLookup(target.table), [value])).rows[0];
      if (found === undefined) throw new ApiError(409, `${name}: there is no ${target.singular} with id ${value as number}`);
    }
  }

  // A parent that closes for good (a cart once it is an order). Its row is locked first (before the reference checks,
  // in the order place_order locks: cart, then products), so a close racing this write either waits for it or is
  // seen by it. SQLite has one writer at a time: there the plain read is enough.
  const closing = (() => {
    const closedWith = resource.closedWith;
    const target = closedWith === undefined ? undefined : resource.fields[closedWith.field]?.references;
    if (closedWith === undefined || target === undefined) return undefined;
    const parent = resourceNamed(target);
    const lookup = dialect.lockForWrite(db.selectFrom(parent.table).select(['id', closedWith.closedBy]).where('id', '=', 0)).compile();
    return { field: closedWith.field, column: closedWith.closedBy, singular: parent.singular, lookup };
  })();
  function* checkOpen(parentIds: readonly unknown[]): WriteSteps<void> {
    if (closing === undefined) return;
    for (const id of new Set(parentIds)) {
      if (id === undefined || id === null) continue;
      const closedBy = (yield withParameters(closing.lookup, [id])).rows[0]?.[closing.column];
      if (closedBy !== null && closedBy !== undefined) {
        throw new ApiError(409, `${closing.singular} ${textOf(id)} is closed (its ${closing.column} is ${textOf(closedBy)}): it takes no more ${resource.name}`);
      }
    }
  }
  function* checkOpenAround(id: number, values: Row): WriteSteps<void> {
    if (closing === undefined) return;
    const current = (yield byId(id)).rows[0];
    yield* checkOpen([current?.[closing.field], values[closing.field]]);
  }

  /** Runs one statement, turning the database's constraint errors into clear 409s. */
  function* guarded(query: CompiledQuery): WriteSteps<QueryResult<Row>> {
    try {
      return yield query;
    } catch (error) {
      // A referenced row deleted between the check and the write still lands here as a clear 409.
      const kind = constraintViolation(error);
      if (kind === 'foreign-key') throw new ApiError(409, `${resource.singular}: a referenced record does not exist, or other records still refer to this one`);
      if (kind === 'unique') throw new ApiError(409, `${resource.singular}: a record with these values already exists`);
      throw error;
    }
  }

  const { returning } = dialect;

  // Inserts compiled once per set of columns: the SQL depends only on them, one parameter per value in column order.
  const inserts = new Map<string, CompiledQuery>();
  function insert(row: Row): CompiledQuery {
    const columns = Object.keys(row);
    const key = columns.join(',');
    let compiled = inserts.get(key);
    if (compiled === undefined) {
      const statement = db.insertInto(table).values(row);
      compiled = !returning ? statement.compile() : declaredColumns === undefined ? statement.returningAll().compile() : statement.returning(declaredColumns).compile();
      if (compiled.parameters.length !== columns.length) return compiled;
      if (inserts.size < 100) inserts.set(key, compiled);
    }
    return withParameters(compiled, columns.map((column) => row[column]));
  }

  const byId = (id: number) => withParameters(idLookup(table, true), [id]);
  const shaped = (row: Row | undefined) => (row === undefined ? undefined : toJson(row));

  function* readBack(id: number): WriteSteps<Row | undefined> {
    return shaped((yield byId(id)).rows[0]);
  }

  // What listeners (webhooks) do in these writes' transactions; nothing for most resources.
  const hooksNow = writeHooksOf(database, resource);
  const announced = <T>(value: T): T => {
    hooksNow()?.committed();
    return value;
  };

  // Every visible field as JSON text the database writes (SQLite): a created record's answer, and list pages.
  // None where the JSON cannot be the answer (encrypted fields).
  const allFieldsJson = dialect.recordJson(resource, undefined);
  const answerText = allFieldsJson;
  const answerById = answerText === undefined ? undefined : db.selectFrom(table).select(answerText.as(JSON_COLUMN)).where('id', '=', 0).compile();

  // Declared once here, not per call: V8 makes every new generator function at some cost (about 2 µs).
  function* createSteps(values: Row, asText: boolean): WriteSteps<Row | string> {
    if (closing !== undefined) yield* checkOpen([values[closing.field]]);
    const events = hooksNow();
    if (references.length > 0) yield* checkReferences(values);
    const now = isoNow(databaseNow(database));
    const row = { ...values, created_at: now, updated_at: now };
    let created: Row | undefined;
    if (returning) {
      const [inserted] = (yield* guarded(insert(row))).rows;
      if (inserted === undefined) throw new Error(`inserting a ${resource.singular} returned no row`);
      created = toJson(inserted);
    } else if (asText && answerById !== undefined) {
      const { insertId } = yield* guarded(insert(row));
      const text = (yield withParameters(answerById, [Number(insertId)])).rows[0]?.[JSON_COLUMN];
      if (typeof text !== 'string') throw new Error(`${resource.singular} ${String(insertId)} vanished right after its creation`);
      if (events !== undefined) yield* events.created(text);
      return text;
    } else {
      const { insertId } = yield* guarded(insert(row));
      created = yield* readBack(Number(insertId));
      if (created === undefined) throw new Error(`${resource.singular} ${String(insertId)} vanished right after its creation`);
    }
    if (events !== undefined) yield* events.created(created);
    return created;
  }

  // Fields pointing at records of the same resource (a category's parent): no record may become its own ancestor.
  const selfReferences = references.filter(({ target }) => target.name === resource.name).map(({ name }) => name);
  const changesTree = (values: Row) => selfReferences.some((name) => values[name] !== undefined && values[name] !== null);
  const parentLookups = new Map(selfReferences.map((name) => [name, dialect.lockForWrite(db.selectFrom(table).select(name).where('id', '=', 0)).compile()]));
  // One tree change at a time (see the dialect's treeLock).
  const treeLock = dialect.treeLock(db, table);

  function* checkNoLoop(id: number, values: Row): WriteSteps<void> {
    if (treeLock !== undefined) yield treeLock;
    for (const name of selfReferences) {
      const lookup = parentLookups.get(name);
      let ancestor = values[name];
      for (let hops = 0; lookup !== undefined && ancestor !== undefined && ancestor !== null; hops += 1) {
        // A loop already in the data (made before this check) would otherwise never end.
        if (Number(ancestor) === id || hops > 10_000) throw new ApiError(409, `${name}: ${resource.singular} ${id} would become its own ancestor`);
        ancestor = (yield withParameters(lookup, [ancestor])).rows[0]?.[name];
      }
    }
  }

  function* updateSteps(id: number, values: Row): WriteSteps<Row | undefined> {
    if (closing !== undefined) yield* checkOpenAround(id, values);
    const events = hooksNow();
    if (references.length > 0) yield* checkReferences(values);
    if (changesTree(values)) yield* checkNoLoop(id, values);
    const before = events?.needsBefore === true ? yield* readBack(id) : undefined;
    const update = db.updateTable(table).set({ ...values, updated_at: isoNow(databaseNow(database)) }).where('id', '=', id);
    let updated: Row | undefined;
    if (returning) updated = shaped((yield* guarded((declaredColumns === undefined ? update.returningAll() : update.returning(declaredColumns)).compile())).rows[0]);
    else {
      yield* guarded(update.compile());
      updated = yield* readBack(id);
    }
    if (events !== undefined && updated !== undefined) yield* events.updated(before, updated);
    return updated;
  }

  function* removeSteps(id: number): WriteSteps<boolean> {
    if (closing !== undefined) yield* checkOpenAround(id, {});
    const result = yield* guarded(db.deleteFrom(table).where('id', '=', id).compile());
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  function orderedSelect(query: ListQuery) {
    const keyFields = [...query.sort.map((key) => key.field), 'id'];
    let select = db.selectFrom(table);
    select = query.fields !== undefined ? select.select([...new Set([...keyFields, ...query.fields])]) : declaredColumns === undefined ? select.selectAll() : select.select(declaredColumns);
    for (const key of query.sort) select = select.orderBy(key.field, key.descending ? 'desc' : 'asc');
    return { keyFields, select: select.orderBy('id', 'asc') };
  }

  // Pages without expanded collections, as JSON the database writes (where it does).
  function jsonRows(query: ListQuery) {
    if (allFieldsJson === undefined || query.expand.length > 0) return undefined;
    return query.fields === undefined ? allFieldsJson : dialect.recordJson(resource, query.fields);
  }
  const allFieldsHash = dialect.recordJsonHash(resource);
  function jsonSelect(query: ListQuery, json: RawBuilder<string>) {
    const keyFields = [...query.sort.map((key) => key.field), 'id'];
    let select = db.selectFrom(table).select([json.as(JSON_COLUMN), ...new Set(keyFields)]);
    if (json === allFieldsJson && allFieldsHash !== undefined) select = select.select(allFieldsHash.as(HASH_COLUMN));
    for (const key of query.sort) select = select.orderBy(key.field, key.descending ? 'desc' : 'asc');
    return { keyFields, select: select.orderBy('id', 'asc') };
  }
  /** A sort column's value as the API answers it, for the next page's position. */
  function keyValue(field: string, value: unknown): FilterValue {
    const type = resource.fields[field]?.type;
    return (value === null || value === undefined || type === undefined ? null : fromColumn[type](value)) as FilterValue;
  }

  /** Drops the sort and id columns a `fields=` list did not ask for, and inlines the expanded collections. */
  async function finish(rows: Row[], query: ListQuery, keyFields: readonly string[]): Promise<void> {
    await expandRows(db, resource, rows, query.expand);
    if (query.fields !== undefined) {
      for (const field of keyFields) if (!query.fields.includes(field)) for (const row of rows) delete row[field];
    }
  }

  return {
    async many(ids, query) {
      if (ids.length === 0) return [];
      const { keyFields, select } = orderedSelect(query);
      const rows = (await select.where('id', 'in', ids).execute()).map(toJson);
      await finish(rows, query, keyFields);
      return rows;
    },

    async list(query, scope, options) {
      // No WHERE at all for a whole table: SQLite then counts it from its b-tree pages (OP_Count), over twice as
      // fast as with a `1 = 1` condition (1.9 vs 0.8 ms for 100,000 products), and every list page counts.
      const unfiltered = scope === undefined && query.filters.length === 0;
      const where = (eb: Where) => eb.and([scoped(eb, scope), filtersExpression(eb, query.filters)]);
      const json = jsonRows(query);
      const ordered = json === undefined ? orderedSelect(query) : jsonSelect(query, json);
      const { keyFields } = ordered;
      const offset = (query.page - 1) * query.count;
      // Past an offset, the page's ids are found first (the index alone), then their records written: the database
      // would write the JSON of every row it skips (20 s for page 500 of a million products on PostgreSQL).
      const late = json !== undefined && offset > 0 && query.after === undefined;
      let select = late ? orderedSelect({ ...query, fields: ['id'] }).select.clearSelect().select('id') : ordered.select;
      if (!unfiltered) select = select.where(where);
      if (query.after !== undefined) select = select.where((eb) => afterExpression(eb, query.sort, query.after ?? []));
      // The id tiebreak makes the order total, so pages neither skip nor repeat rows.
      select = select.limit(query.count + 1);
      if (query.after === undefined) select = select.offset(offset);
      if (late) select = ordered.select.where('id', 'in', select);
      const rows = (await select.execute()) as Row[];
      const hasMore = rows.length > query.count;
      if (hasMore) rows.pop();
      // The total: carried by the walk's position from its first page (counting a million rows again on each page of
      // a walk was most of its time); told by the last page reached by offset; else counted.
      const countRows = async (): Promise<number | bigint | string> =>
        (unfiltered ? await dialect.keptCount(db, table) : undefined) ??
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('total'))
            .$if(!unfiltered, (counting) => counting.where(where))
            .executeTakeFirstOrThrow()
        ).total;
      const total =
        options?.uncounted === true
          ? -1
          : query.after !== undefined && query.afterTotal !== undefined
            ? query.afterTotal
            : !hasMore && query.after === undefined && (rows.length > 0 || offset === 0)
              ? offset + rows.length
              : await countRows();
      const last = rows.at(-1);
      const nextAfter = last !== undefined && keysetPageable(resource, query.sort) ? keyFields.map((field) => keyValue(field, last[field])) : undefined;
      if (json !== undefined) {
        const texts = rows.map((row) => row[JSON_COLUMN] as string);
        const textHashes = json === allFieldsJson && allFieldsHash !== undefined ? rows.map((row) => (row[HASH_COLUMN] ?? null) as string | null) : undefined;
        return { total: Number(total), rows: [], texts, ...(textHashes === undefined ? {} : { textHashes }), hasMore, nextAfter };
      }
      const records = rows.map(toJson);
      await finish(records, query, keyFields);
      return { total: Number(total), rows: records, hasMore, nextAfter };
    },

    async get(id, expandNames = []) {
      const row = shaped((await db.executeQuery<Row>(byId(id))).rows[0]);
      if (row !== undefined && expandNames.length > 0) await expandRows(db, resource, [row], expandNames);
      return row;
    },

    create: (values) => writes.run(() => createSteps(values, false) as WriteSteps<Row>).then(announced),
    createAnswer: (values) => writes.run(() => createSteps(values, true)).then(announced),
    update: (id, values) => writes.run(() => updateSteps(id, values)).then(announced),
    remove: (id) =>
      writes.run(() => removeSteps(id)).catch(async (error: unknown) => {
        if (!(error instanceof ApiError) || error.statusCode !== 409) throw error;
        const referrers = await referrersOf(database, resource, id);
        if (referrers.length === 0) throw error;
        throw new ApiError(409, `${resource.singular} ${id} is still referred to by ${referrers.join('; ')}: change or delete those first`);
      }),
  };
}

/** The column a record's JSON text comes back in; no declared field starts with `__`. */
const JSON_COLUMN = '__json';
const HASH_COLUMN = '__json_hash';

// Formatting a date takes about a microsecond; writes landing in the same millisecond share one text.
let lastIso = { ms: Number.NaN, text: '' };
function isoNow(ms: number): string {
  if (ms !== lastIso.ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

function withParameters(compiled: CompiledQuery, parameters: readonly unknown[]): CompiledQuery {
  return { ...compiled, parameters };
}

