import { longTextType, withIdColumn, type ProductMigration } from '@app/database';

// The event log clients catch up from (GET /events): every event webhooks carry, written in the transaction of the
// write that caused it, whether or not anyone subscribed. Read in id order; old rows go by created_at.
export const eventLog: ProductMigration = {
  up: async (db, dialect) => {
    const longText = longTextType(dialect);
    await withIdColumn(db.schema.createTable('event_log'), dialect)
      .addColumn('event_type', 'varchar(50)', (c) => c.notNull())
      .addColumn('resource', 'varchar(50)', (c) => c.notNull())
      .addColumn('record_id', 'integer')
      .addColumn('body', longText, (c) => c.notNull())
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('event_log_type').on('event_log').columns(['event_type', 'id']).execute();
    await db.schema.createIndex('event_log_created_at').on('event_log').columns(['created_at', 'id']).execute();
  },
};
