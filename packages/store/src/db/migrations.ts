import type { ProductMigration } from '@app/database';
import { storeAndUsers } from './migrations/0001_store_and_users.ts';
import { catalog } from './migrations/0002_catalog.ts';
import { peopleAndOrders } from './migrations/0003_people_and_orders.ts';

/** The core's schema steps. Auth's steps are named `0100_auth_*` and are merged in by app composition. */
export const coreMigrations: Record<string, ProductMigration> = {
  '0001_store_and_users': storeAndUsers,
  '0002_catalog': catalog,
  '0003_people_and_orders': peopleAndOrders,
};

export const MIGRATION_PRODUCT = 'store';
