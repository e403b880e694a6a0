import type { ProductMigration } from '@app/database';

// A sandbox store's clock (db/sandbox-clock.ts): how far it has been moved ahead of real time. One row,
// written when a store is first served in sandbox mode; every instance reads it, so they agree on the time.
export const sandboxClock: ProductMigration = {
  up: async (db) => {
    await db.schema
      .createTable('sandbox_clock')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('offset_ms', 'bigint', (c) => c.notNull())
      .execute();
  },
};
