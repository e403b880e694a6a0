import { withIdColumn, type ProductMigration } from '@app/database';

// The store itself and its admin accounts. `users` stays minimal on purpose: auth (0100_auth_*) adds its own tables.
export const storeAndUsers: ProductMigration = {
  up: async (db, dialect) => {
    await withIdColumn(db.schema.createTable('stores'), dialect)
      .addColumn('name', 'varchar(255)', (c) => c.notNull())
      .addColumn('plan', 'varchar(20)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await withIdColumn(db.schema.createTable('users'), dialect)
      .addColumn('store_id', 'integer', (c) => c.notNull().references('stores.id').onDelete('cascade'))
      .addColumn('email', 'varchar(255)', (c) => c.notNull().unique())
      .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
  },
};
