import { withIdColumn, type ProductMigration } from '@app/database';
import { timestamps } from './timestamps.ts';

export const peopleAndOrders: ProductMigration = {
  up: async (db, dialect) => {
    await timestamps(
      withIdColumn(db.schema.createTable('customers'), dialect)
        .addColumn('first_name', 'varchar(100)')
        .addColumn('last_name', 'varchar(100)')
        .addColumn('email', 'varchar(255)', (c) => c.notNull())
        .addColumn('phone', 'varchar(50)')
        .addColumn('company', 'varchar(255)')
        .addColumn('is_no_tax', 'boolean', (c) => c.notNull().defaultTo(false)),
    ).execute();
    await timestamps(
      withIdColumn(db.schema.createTable('order_statuses'), dialect)
        .addColumn('name', 'varchar(100)', (c) => c.notNull())
        .addColumn('is_open', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('is_declined', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('is_cancelled', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('is_shipped', 'boolean', (c) => c.notNull().defaultTo(false)),
    ).execute();
    await timestamps(
      withIdColumn(db.schema.createTable('orders'), dialect)
        .addColumn('customer_id', 'integer', (c) => c.references('customers.id'))
        .addColumn('order_status_id', 'integer', (c) => c.references('order_statuses.id'))
        .addColumn('ordered_at', 'varchar(32)')
        .addColumn('subtotal', 'decimal(14, 4)')
        .addColumn('tax_total', 'decimal(14, 4)')
        .addColumn('shipping_total', 'decimal(14, 4)')
        .addColumn('grand_total', 'decimal(14, 4)')
        .addColumn('notes', 'varchar(2000)'),
    ).execute();
    await timestamps(
      withIdColumn(db.schema.createTable('order_items'), dialect)
        .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id').onDelete('cascade'))
        .addColumn('product_id', 'integer', (c) => c.references('products.id'))
        .addColumn('item_number', 'varchar(100)')
        .addColumn('item_name', 'varchar(255)')
        .addColumn('quantity', 'integer')
        .addColumn('price', 'decimal(14, 4)'),
    ).execute();
  },
};
