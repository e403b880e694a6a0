import type { ProductMigration } from '@app/database';
import { sql } from 'kysely';

// The store and its admins were made with created_at only, so GET /stores/{id} and /users/{id} answered
// updated_at null where the document promises a time: they take their creation time.
export const stampedStoresAndAdmins: ProductMigration = {
  up: async (db) => {
    for (const table of ['stores', 'users'])
      await sql`update ${sql.table(table)} set updated_at = created_at where updated_at is null`.execute(db);
  },
};
