import type { ProductMigration } from '@app/database';

// What every store of the platform starts with, in a stable order so the ids are the same in every store
// (clients assume product status 1 is "In Stock"). A table that already holds rows is left alone.
const defaults: Record<string, Record<string, unknown>[]> = {
  product_statuses: [
    { name: 'In Stock' },
    { name: 'Out of Stock', is_unavailable: true },
    { name: 'Back Ordered', is_back_ordered: true },
    { name: 'Discontinued', is_unavailable: true, is_hidden: true },
    { name: 'Pre-Order', is_back_ordered: true, time_frame: 'Ships on release' },
  ],
  order_statuses: [
    { name: 'New', is_open: true },
    { name: 'Pending', is_open: true },
    { name: 'Processing', is_open: true },
    { name: 'Shipped', is_shipped: true },
    { name: 'Partially Shipped', is_open: true, is_partially_shipped: true },
    { name: 'Cancelled', is_cancelled: true },
    { name: 'Declined', is_declined: true },
    { name: 'Refunded', is_fully_refunded: true },
    { name: 'Quote', is_open: true, is_quote_status: true },
  ],
  categories: [{ name: 'Home', is_category_content_displayed: true, are_subcategory_products_displayed: true }],
  customer_types: [
    { name: 'Retail', customer_level: 0 },
    { name: 'Wholesale', customer_level: 1 },
  ],
  payment_methods: [
    { name: 'Send Check or Money Order', payment_type: 'Custom', sort_order: 1 },
    { name: 'Pay by Purchase Order', payment_type: 'Custom', sort_order: 2 },
  ],
};

export const freshStoreDefaults: ProductMigration = {
  up: async (db) => {
    const now = new Date().toISOString();
    for (const [table, rows] of Object.entries(defaults)) {
      const { count } = (await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirstOrThrow()) as { count: number | string };
      if (Number(count) > 0) continue;
      // One at a time: the ids follow the order above on every database.
      for (const row of rows)
        await db
          .insertInto(table)
          .values({ ...row, created_at: now, updated_at: now })
          .execute();
    }
  },
};
