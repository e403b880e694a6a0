// On the first start the store and its admin account are made; the password is shown once and kept only hashed.
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../accounts/password-hash.ts';
import { constraintViolation } from './constraint-violation.ts';
import { dialectSqlOf } from './dialects/of.ts';
import type { StoreDatabase } from './schema.ts';
import type { Plan } from '../limits/plans.ts';

export interface FirstStart {
  storeId: number;
  email: string;
  password: string;
}

/** Creates the store and its admin when there is none yet; returns the credentials only then. */
export async function ensureStore(
  database: StoreDatabase,
  options: { name?: string; plan?: Plan; adminEmail?: string } = {},
): Promise<FirstStart | undefined> {
  const { db } = database;
  const createOnce = () =>
    db.transaction().execute(async (trx) => {
      if ((await trx.selectFrom('stores').select('id').executeTakeFirst()) !== undefined) return undefined;
      const now = new Date().toISOString();
      const store = { name: options.name ?? 'My Store', plan: options.plan ?? 'gold', created_at: now, updated_at: now };
      const storeId = await dialectSqlOf(database).insertRow(trx, 'stores', store);
      const email = options.adminEmail ?? 'admin@store.localhost';
      const password = randomBytes(18).toString('base64url');
      await trx
        .insertInto('users')
        .values({ store_id: storeId, email, password_hash: await hashPassword(password), created_at: now, updated_at: now })
        .execute();
      return { storeId, email, password };
    });
  try {
    return await createOnce();
  } catch (error) {
    // Two instances starting on one new database: the one that lost the race finds the store made.
    if (constraintViolation(error) === 'unique' && (await db.selectFrom('stores').select('id').executeTakeFirst()) !== undefined)
      return undefined;
    throw error;
  }
}
