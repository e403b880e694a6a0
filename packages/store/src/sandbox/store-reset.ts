// `store reset`: empties a store's records (catalog, people, carts, orders, content, marketing and settings records),
// restarting their ids, and puts back what every fresh store starts with (statuses, the Home category, ...). The
// store itself, its admins, apps, tokens and webhook subscriptions stay; queued deliveries, idempotency keys and bulk
// jobs go (the CLI removes the jobs' files: an export of the old catalog must not outlive it).
import { freshStoreDefaults } from '../db/migrations/0401_fresh_store_defaults.ts';
import { dialectSqlOf } from '../db/dialects/of.ts';
import type { StoreDatabase } from '../db/schema.ts';
import { resources } from '../model/registry.ts';

const KEPT = new Set(['stores', 'webhooks']);

/** The tables reset empties: every declared resource's and link table, and the state kept about their writes. */
export function resetTables(): string[] {
  const tables = new Set<string>();
  for (const resource of resources) {
    if (!KEPT.has(resource.table)) tables.add(resource.table);
    for (const nested of Object.values(resource.nested)) if (nested.kind === 'link') tables.add(nested.table);
  }
  return [...tables, 'webhook_attempts', 'webhook_deliveries', 'idempotency_keys', 'bulk_operations'].sort();
}

export async function resetStore(database: StoreDatabase): Promise<number> {
  const { db, dialect } = database;
  const tables = resetTables();
  let rows = 0;
  for (const table of tables)
    rows += Number(
      (
        (await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()) as { n: number | string }
      ).n,
    );
  await dialectSqlOf(database).emptyTables(db, tables);
  await freshStoreDefaults.up(db, dialect);
  return rows;
}
