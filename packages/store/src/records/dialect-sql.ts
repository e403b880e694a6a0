// What the record SQL does differently on each database family, as one small interface; records.ts asks it
// instead of testing the dialect's name. One implementation per family in dialects/, chosen in dialects/of.ts.
import type { CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { Row, StoreSchema } from '../db/schema.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';

export interface DialectSql {
  /** INSERT and UPDATE answer the written row (RETURNING); without, the row is read back by id. */
  readonly returning: boolean;
  /**
   * A record as JSON text the database writes itself, of these fields (all visible ones when undefined);
   * undefined where the database does not (then rows are shaped and serialised in JS).
   */
  recordJson(resource: ResourceDeclaration, fields: readonly string[] | undefined): RawBuilder<string> | undefined;
  /** A hash of recordJson's text of all fields where the database keeps one (null for rows it does not); else undefined. */
  recordJsonHash(resource: ResourceDeclaration): RawBuilder<string | null> | undefined;
  /** A read inside a write that holds its rows until the commit. */
  lockForWrite<Q extends { forUpdate(): Q }>(query: Q): Q;
  /** The statement that makes tree changes of one table take turns; undefined where writes run one at a time anyway. */
  treeLock(db: Kysely<StoreSchema>, table: string): CompiledQuery | undefined;
  /** Inserts one row and answers its new id. */
  insertRow(db: Kysely<StoreSchema>, table: string, row: Row): Promise<number>;
  /** A whole table's exact row count where the database keeps one (cheaper than counting); else undefined. */
  keptCount(db: Kysely<StoreSchema>, table: string): Promise<number | undefined>;
}
