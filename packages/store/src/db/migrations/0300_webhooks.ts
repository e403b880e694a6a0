// Webhook schema steps, named 0300_* so they sort after the core's, auth's and idempotency's.
import { sql } from 'kysely';
import { longTextType, withIdColumn, type ProductMigration } from '@app/database';
import { timestamps } from './timestamps.ts';

export const webhookMigrations: Record<string, ProductMigration> = {
  '0300_webhooks': {
    up: async (db, dialect) => {
      const longText = longTextType(dialect);
      await timestamps(
        withIdColumn(db.schema.createTable('webhooks'), dialect)
          .addColumn('event_type', 'varchar(50)', (c) => c.notNull())
          .addColumn('url', 'varchar(2000)', (c) => c.notNull())
          .addColumn('failure_type', 'varchar(16)')
          .addColumn('fallback_url', 'varchar(2000)')
          .addColumn('store_id', 'integer')
          .addColumn('cache_length', 'varchar(16)')
          .addColumn('app_client_id', 'varchar(64)')
          // One instance at a time delivers a subscription's events, in order: it holds the lease until then.
          .addColumn('lease_owner', 'varchar(64)')
          .addColumn('lease_until', 'varchar(32)'),
      ).execute();
      await db.schema.createIndex('webhooks_event_type').on('webhooks').column('event_type').execute();
      // The outbox: one row per event and subscription, written in the transaction of the write that caused it.
      await withIdColumn(db.schema.createTable('webhook_deliveries'), dialect)
        .addColumn('subscription_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('event_type', 'varchar(50)', (c) => c.notNull())
        .addColumn('body', longText, (c) => c.notNull())
        // pending, delivered, or failed (given up after the retry window).
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('last_attempt_at', 'varchar(32)')
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'varchar(500)')
        .addColumn('delivered_at', 'varchar(32)')
        .addColumn('delivered_to', 'varchar(16)')
        .addColumn('resent_from', 'integer')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['state', 'next_attempt_at']).execute();
      await db.schema
        .createIndex('webhook_deliveries_subscription')
        .on('webhook_deliveries')
        .columns(['subscription_id', 'state', 'id'])
        .execute();
    },
  },
  // Numbered after 0401 so a database that ran every earlier step takes it next.
  '0402_webhook_suspension': {
    up: async (db) => {
      // Reply hooks failed in a row; past a limit the subscription is suspended, and the console says why.
      await db.schema.alterTable('webhooks').addColumn('reply_failures', 'integer').execute();
      await db.schema.alterTable('webhooks').addColumn('suspended_at', 'varchar(32)').execute();
      await db.schema.alterTable('webhooks').addColumn('suspended_reason', 'varchar(500)').execute();
    },
  },
  // Standard Webhooks signing secrets, derived from the server key and a nonce (none until the first rotation), and
  // during a rotation's overlap the previous one too.
  '0403_webhook_signing': {
    up: async (db) => {
      await db.schema.alterTable('webhooks').addColumn('signing_nonce', 'varchar(64)').execute();
      await db.schema.alterTable('webhooks').addColumn('previous_signing_nonce', 'varchar(64)').execute();
      await db.schema.alterTable('webhooks').addColumn('previous_signing_until', 'varchar(32)').execute();
    },
  },
  // Every attempt of a delivery, for the console: when, to where, the status, how long it took, the reply's first bytes.
  '0404_webhook_attempts': {
    up: async (db, dialect) => {
      await withIdColumn(db.schema.createTable('webhook_attempts'), dialect)
        .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
        .addColumn('attempted_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('sent_to', 'varchar(16)', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('reply_head', 'varchar(200)')
        .addColumn('error', 'varchar(500)')
        .execute();
      await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'id']).execute();
    },
  },
  // A subscription's oldest pending events, from an index of pending rows only. With (subscription_id, state, id) alone
  // PostgreSQL walked the primary key past every delivered row (its statistics take the pending ones for spread
  // evenly, not at the end): 300-600 ms for each look at the outbox once 70,000 were delivered, 0.2-4 ms with this.
  // MariaDB has no partial indexes; it keeps the index above. Numbered after 0471 so a database that ran every
  // earlier step takes it next.
  '0480_webhook_pending': {
    up: async (db, dialect) => {
      if (dialect === 'mysql') return;
      await db.schema
        .createIndex('webhook_deliveries_pending')
        .on('webhook_deliveries')
        .columns(['subscription_id', 'id'])
        .where(sql<boolean>`state = 'pending'`)
        .execute();
    },
  },
};
