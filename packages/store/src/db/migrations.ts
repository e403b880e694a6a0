import { migrateToLatest, type ProductMigration } from '@app/database';
import { storeAndUsers } from './migrations/0001_store_and_users.ts';
import { catalog } from './migrations/0002_catalog.ts';
import { peopleAndOrders } from './migrations/0003_people_and_orders.ts';
import { authMigrations } from './migrations/0100_auth.ts';
import { idempotencyMigrations } from './migrations/0200_idempotency.ts';
import { webhookMigrations } from './migrations/0300_webhooks.ts';
import { platformResources } from './migrations/0400_platform_resources.ts';
import { freshStoreDefaults } from './migrations/0401_fresh_store_defaults.ts';
import { listIndexes } from './migrations/0410_list_indexes.ts';
import { eventLog } from './migrations/0420_event_log.ts';
import { bulkOperations } from './migrations/0430_bulk_operations.ts';
import { scaleIndexes } from './migrations/0440_scale_indexes.ts';
import { recordCounts } from './migrations/0441_record_counts.ts';
import { eventSequence } from './migrations/0450_event_sequence.ts';
import { recordJson } from './migrations/0460_record_json.ts';
import { sandboxClock } from './migrations/0470_sandbox_clock.ts';
import { stampedStoresAndAdmins } from './migrations/0471_stamped_stores_and_admins.ts';
import { recordDeletions } from './migrations/0490_record_deletions.ts';
import { updatedAtStatistics } from './migrations/0491_updated_at_statistics.ts';
import { refreshRecordJsonTriggers } from './record-json-triggers.ts';
import type { StoreDatabase } from './schema.ts';

/** The core's schema steps. */
export const coreMigrations: Record<string, ProductMigration> = {
  '0001_store_and_users': storeAndUsers,
  '0002_catalog': catalog,
  '0003_people_and_orders': peopleAndOrders,
  // Numbered after the other steps: a database that ran those takes these next.
  '0400_platform_resources': platformResources,
  '0401_fresh_store_defaults': freshStoreDefaults,
  '0410_list_indexes': listIndexes,
  '0420_event_log': eventLog,
  '0430_bulk_operations': bulkOperations,
  '0440_scale_indexes': scaleIndexes,
  '0441_record_counts': recordCounts,
  '0450_event_sequence': eventSequence,
  '0460_record_json': recordJson,
  '0470_sandbox_clock': sandboxClock,
  '0471_stamped_stores_and_admins': stampedStoresAndAdmins,
  '0490_record_deletions': recordDeletions,
  '0491_updated_at_statistics': updatedAtStatistics,
};

/** Every schema step of the store: the core's, auth's (0100_auth_*), idempotency keys' (0200_*), webhooks' (0300_*), then the platform's resources (0400_*). */
export const storeMigrations: Record<string, ProductMigration> = {
  ...coreMigrations,
  ...authMigrations,
  ...idempotencyMigrations,
  ...webhookMigrations,
};

export const MIGRATION_PRODUCT = 'store';

/** Brings a store's database to the running code: its schema steps, then what is generated from the declarations. */
export async function migrateStore(database: StoreDatabase): Promise<void> {
  await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
  await refreshRecordJsonTriggers(database.db, database.dialect);
}
