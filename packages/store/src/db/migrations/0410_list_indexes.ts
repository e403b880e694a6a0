import type { ProductMigration } from '@app/database';

// The lists sync clients read on a catalogue of millions (bench/store/scale.ts): a product by item number,
// a category's products (by primary category, or through the links), in id order. `updated_at` ranges already
// have their index (every table's `<table>_updated_at` on updated_at, id).
export const listIndexes: ProductMigration = {
  up: async (db) => {
    await db.schema.createIndex('products_item_number').on('products').column('item_number').execute();
    await db.schema.createIndex('products_primary_category').on('products').columns(['primary_category_id', 'id']).execute();
    // The primary key (product_id, category_id) serves one product's categories, not one category's products.
    await db.schema.createIndex('product_categories_category').on('product_categories').columns(['category_id', 'product_id']).execute();
  },
};
