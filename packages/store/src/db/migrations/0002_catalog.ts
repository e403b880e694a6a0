import { withIdColumn, type ProductMigration } from '@app/database';
import { timestamps } from './timestamps.ts';

export const catalog: ProductMigration = {
  up: async (db, dialect) => {
    await timestamps(
      withIdColumn(db.schema.createTable('product_statuses'), dialect)
        .addColumn('name', 'varchar(100)', (c) => c.notNull())
        .addColumn('is_unavailable', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('is_hidden', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('is_back_ordered', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('show_quantity', 'boolean', (c) => c.notNull().defaultTo(false)),
    ).execute();
    await timestamps(
      withIdColumn(db.schema.createTable('manufacturers'), dialect)
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('description', 'varchar(2000)')
        .addColumn('url', 'varchar(500)')
        .addColumn('is_hidden', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('sort_order', 'integer'),
    ).execute();
    await timestamps(
      withIdColumn(db.schema.createTable('categories'), dialect)
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('parent_category_id', 'integer', (c) => c.references('categories.id'))
        .addColumn('description', 'varchar(2000)')
        .addColumn('is_hidden', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('sort_order', 'integer'),
    ).execute();
    await timestamps(
      withIdColumn(db.schema.createTable('products'), dialect)
        .addColumn('item_number', 'varchar(100)')
        .addColumn('item_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('product_status_id', 'integer', (c) => c.references('product_statuses.id'))
        .addColumn('primary_category_id', 'integer', (c) => c.references('categories.id'))
        .addColumn('manufacturer_id', 'integer', (c) => c.references('manufacturers.id'))
        .addColumn('short_description', 'varchar(2000)')
        .addColumn('price', 'decimal(14, 4)')
        .addColumn('cost', 'decimal(14, 4)')
        .addColumn('retail', 'decimal(14, 4)')
        .addColumn('weight', 'decimal(14, 4)')
        .addColumn('quantity_on_hand', 'integer')
        .addColumn('is_hidden', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('is_discontinued', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('keywords', 'varchar(1000)')
        .addColumn('sort_order', 'integer'),
    ).execute();
    await db.schema.createIndex('products_updated_at').on('products').columns(['updated_at', 'id']).execute();
    await db.schema
      .createTable('product_categories')
      .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
      .addColumn('category_id', 'integer', (c) => c.notNull().references('categories.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('product_categories_pk', ['product_id', 'category_id'])
      .execute();
  },
};
