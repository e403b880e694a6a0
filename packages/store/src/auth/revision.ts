// The revocation revision as stored: what principal caches poll (see revocations.ts).
import type { Kysely } from 'kysely';
import type { AuthTables } from './schema.ts';

export async function readRevision(db: Kysely<AuthTables>): Promise<number> {
  const row = await db.selectFrom('auth_revision').select('revision').where('id', '=', 1).executeTakeFirst();
  return Number(row?.revision ?? 0);
}
