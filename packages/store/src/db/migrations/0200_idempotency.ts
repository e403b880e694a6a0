// Idempotency schema steps, named 0200_* so they sort after the core's and auth's.
import { longTextType, type ProductMigration } from '@app/database';

export const idempotencyMigrations: Record<string, ProductMigration> = {
  '0200_idempotency_keys': {
    up: async (db, dialect) => {
      await db.schema
        .createTable('idempotency_keys')
        // SHA-256 of the caller and the key: one row per caller's key, and the primary key makes a second claim fail.
        .addColumn('key_hash', 'char(64)', (c) => c.primaryKey())
        .addColumn('fingerprint', 'char(64)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        // Null while the first request runs.
        .addColumn('status_code', 'integer')
        .addColumn('content_type', 'varchar(100)')
        .addColumn('body', longTextType(dialect))
        .execute();
      await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute();
    },
  },
};
