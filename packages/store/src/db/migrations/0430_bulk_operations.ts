import { withIdColumn, type ProductMigration } from '@app/database';
import { sql } from 'kysely';

// Bulk jobs (POST /bulk_operations): exports and imports run in the background by whichever instance holds the
// job's lease, so a job survives a restart and runs once however many instances there are. Their files live in
// the store's data dir; the row says where a job stands.
export const bulkOperations: ProductMigration = {
  up: async (db, dialect) => {
    const longText = dialect === 'mysql' ? sql`mediumtext` : 'text';
    await withIdColumn(db.schema.createTable('bulk_operations'), dialect)
      .addColumn('store_id', 'integer', (c) => c.notNull())
      // export or import
      .addColumn('type', 'varchar(16)', (c) => c.notNull())
      .addColumn('resource', 'varchar(50)', (c) => c.notNull())
      // An export's list query, as a query string.
      .addColumn('query', longText)
      // queued, running, completed or failed
      .addColumn('state', 'varchar(16)', (c) => c.notNull())
      .addColumn('rows_total', 'integer')
      .addColumn('rows_done', 'integer', (c) => c.notNull())
      .addColumn('rows_failed', 'integer', (c) => c.notNull())
      // Bytes of the result file that hold finished lines: an interrupted import goes on from there.
      .addColumn('result_bytes', 'bigint', (c) => c.notNull())
      // A random part of the job's file names, so they cannot be guessed from the id.
      .addColumn('file_key', 'varchar(64)', (c) => c.notNull())
      .addColumn('error', 'varchar(1000)')
      .addColumn('created_by', 'varchar(64)')
      .addColumn('lease_owner', 'varchar(64)')
      .addColumn('lease_until', 'varchar(32)')
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('started_at', 'varchar(32)')
      .addColumn('finished_at', 'varchar(32)')
      .execute();
    await db.schema.createIndex('bulk_operations_state').on('bulk_operations').columns(['state', 'id']).execute();
  },
};
