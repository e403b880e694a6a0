import type { DialectName } from '@app/database';
import type { Kysely } from 'kysely';
import type { Row, StoreSchema } from '../db/schema.ts';
import { dialectSqlOf } from './dialects/of.ts';

/** Inserts one row and answers its new id, on every database. */
export function insertRow(db: Kysely<StoreSchema>, dialect: DialectName, table: string, row: Row): Promise<number> {
  return dialectSqlOf({ dialect }).insertRow(db, table, row);
}
