// What the store's SQL does differently on each database family, as capabilities asked by name (in the manner of
// Kysely's DialectAdapter) rather than tests of the dialect's name spread over the code. One implementation per family
// in dialects/, chosen in dialects/of.ts.
import type { CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { Row, StoreSchema } from './schema.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';

export interface DialectSql {
  /** INSERT and UPDATE answer the written row (RETURNING); without, the row is read back by id. */
  readonly returning: boolean;
  /**
   * Writes take turns on the whole database (SQLite): a write holds it until its commit, so there are no row locks
   * to take, and a second connection that writes waits on the first.
   */
  readonly oneWriter: boolean;
  /**
   * A record as JSON text the database writes itself, of these fields (all visible ones when undefined);
   * undefined where the database does not (then rows are shaped and serialised in JS).
   */
  recordJson(resource: ResourceDeclaration, fields: readonly string[] | undefined): RawBuilder<string> | undefined;
  /** A hash of recordJson's text of all fields where the database keeps one (null for rows it does not); else undefined. */
  recordJsonHash(resource: ResourceDeclaration): RawBuilder<string | null> | undefined;
  /**
   * The columns a read of whole records selects: the declared ones where the table also keeps its rows' JSON
   * (0460_record_json), as a record read or written is shaped from those and the kept text (4 KB for a product)
   * would be read and sent for nothing; undefined for every column (`*`).
   */
  wholeRecordColumns(resource: ResourceDeclaration): readonly string[] | undefined;
  /** A read inside a write that holds its rows until the commit. */
  lockForWrite<Q extends { forUpdate(): Q }>(query: Q): Q;
  /** The statement that makes tree changes of one table take turns; undefined where writes run one at a time anyway. */
  treeLock(db: Kysely<StoreSchema>, table: string): CompiledQuery | undefined;
  /** Inserts one row and answers its new id (its own, however many connections insert at once). */
  insertRow<DB>(db: Kysely<DB>, table: keyof DB & string, row: Row): Promise<number>;
  /** A whole table's exact row count and rows ever lost, where the database keeps them (cheaper than counting); else undefined. */
  keptCounts(db: Kysely<StoreSchema>, table: string): Promise<KeptCounts | undefined>;
  /** Empties these tables, restarting their ids, whatever order their rows refer to each other in. */
  emptyTables(db: Kysely<StoreSchema>, tables: readonly string[]): Promise<void>;
}

export interface KeptCounts {
  readonly rows: number;
  /** Rows deleted since the table was made: it only grows, a TRUNCATE adding one more. */
  readonly deleted: number;
}

/** Kysely types an insert by its schema's tables; the dialects insert into any of them, a row of its columns. */
export const anyTables = <DB>(db: Kysely<DB>): Kysely<StoreSchema> => db as unknown as Kysely<StoreSchema>;
