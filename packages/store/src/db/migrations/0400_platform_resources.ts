import type { ProductMigration } from '@app/database';
import { resources } from '../../model/registry.ts';
import { syncResourceTables } from '../resource-tables.ts';

// Every resource of the platform (packages/store/reference/store-resources.json): its table, or its missing columns.
export const platformResources: ProductMigration = {
  up: (db, dialect) => syncResourceTables(db, dialect, resources),
};
