import type { ProductMigration } from '@app/database';

// `updated_at` ranges (what sync clients page through, sort=updated_at) on the tables made before every table had
// its `<table>_updated_at` index: without it an incremental sync of a million orders reads the whole table.
// The id after updated_at makes the index serve the list's order (updated_at, id) and its keyset position.
const tables = ['orders', 'order_items', 'order_statuses', 'customers', 'categories', 'manufacturers', 'product_statuses'] as const;

export const scaleIndexes: ProductMigration = {
  up: async (db) => {
    for (const table of tables) await db.schema.createIndex(`${table}_updated_at`).on(table).columns(['updated_at', 'id']).execute();
  },
};
