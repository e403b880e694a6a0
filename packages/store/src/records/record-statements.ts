// The SQL of one resource's records, compiled once (routes ask for records on every request) and run with each
// call's parameters: the lookups by id, the inserts, and the reads of a record's JSON where the database writes it.
import type { CompiledQuery, RawBuilder } from 'kysely';
import { dialectSqlOf } from '../db/dialects/of.ts';
import type { DialectSql } from '../db/dialect-sql.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';

/** The column a record's JSON text comes back in; no declared field starts with `__`. */
export const JSON_COLUMN = '__json';
export const HASH_COLUMN = '__json_hash';

export interface RecordStatements {
  readonly database: StoreDatabase;
  readonly resource: ResourceDeclaration;
  readonly dialect: DialectSql;
  /** The columns a whole record is read by; undefined for `*` (DialectSql.wholeRecordColumns). */
  readonly wholeColumns: readonly string[] | undefined;
  /** `select id` (or the whole record, of this resource's table) of one row of `table` by id; its parameter is 0. */
  readonly idLookup: (table: string, whole?: boolean) => CompiledQuery;
  /** The whole record of this id. */
  readonly byId: (id: number) => CompiledQuery;
  /** An insert of this row, answering it where the database has RETURNING. */
  readonly insert: (row: Row) => CompiledQuery;
  /**
   * Every visible field as JSON text the database writes (SQLite, PostgreSQL): a created record's answer, and list
   * pages. Undefined where the JSON cannot be the answer (encrypted fields).
   */
  readonly allFieldsJson: RawBuilder<string> | undefined;
  /** allFieldsJson of one record by id (its parameter is 0). */
  readonly answerById: CompiledQuery | undefined;
}

export function recordStatements(database: StoreDatabase, resource: ResourceDeclaration): RecordStatements {
  const { db } = database;
  const dialect = dialectSqlOf(database);
  const { table } = resource;
  const wholeColumns = dialect.wholeRecordColumns(resource);

  const idLookups = new Map<string, CompiledQuery>();
  function idLookup(of: string, whole = false): CompiledQuery {
    const key = `${of}${whole ? ' *' : ''}`;
    let compiled = idLookups.get(key);
    if (compiled === undefined) {
      const select = db.selectFrom(of).where('id', '=', 0);
      compiled = (
        whole ? (of === table && wholeColumns !== undefined ? select.select(wholeColumns) : select.selectAll()) : select.select('id')
      ).compile();
      idLookups.set(key, compiled);
    }
    return compiled;
  }

  // Compiled once per set of columns: the SQL depends only on them, one parameter per value in column order.
  const inserts = new Map<string, CompiledQuery>();
  function insert(row: Row): CompiledQuery {
    const columns = Object.keys(row);
    const key = columns.join(',');
    let compiled = inserts.get(key);
    if (compiled === undefined) {
      const statement = db.insertInto(table).values(row);
      compiled = !dialect.returning
        ? statement.compile()
        : wholeColumns === undefined
          ? statement.returningAll().compile()
          : statement.returning(wholeColumns).compile();
      if (compiled.parameters.length !== columns.length) return compiled;
      if (inserts.size < 100) inserts.set(key, compiled);
    }
    return withParameters(
      compiled,
      columns.map((column) => row[column]),
    );
  }

  const allFieldsJson = dialect.recordJson(resource, undefined);
  const answerById =
    allFieldsJson === undefined ? undefined : db.selectFrom(table).select(allFieldsJson.as(JSON_COLUMN)).where('id', '=', 0).compile();
  return {
    database,
    resource,
    dialect,
    wholeColumns,
    idLookup,
    byId: (id) => withParameters(idLookup(table, true), [id]),
    insert,
    allFieldsJson,
    answerById,
  };
}

export function withParameters(compiled: CompiledQuery, parameters: readonly unknown[]): CompiledQuery {
  return { ...compiled, parameters };
}
