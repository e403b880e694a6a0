import type { DialectName } from '@app/database';
import type { Kysely } from 'kysely';
import type { Row, StoreSchema } from '../db/schema.ts';

/** Inserts one row and answers its new id, on every database (PostgreSQL has no insert id, only RETURNING). */
export async function insertRow(db: Kysely<StoreSchema>, dialect: DialectName, table: string, row: Row): Promise<number> {
  if (dialect === 'postgres') return Number((await db.insertInto(table).values(row).returning('id').executeTakeFirstOrThrow()).id);
  return Number((await db.insertInto(table).values(row).executeTakeFirstOrThrow()).insertId);
}
