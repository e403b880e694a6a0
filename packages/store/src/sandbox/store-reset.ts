// `store reset`: empties a store's records (catalog, people, carts, orders, content, marketing and settings records),
// restarting their ids, and puts back what every fresh store starts with (statuses, the Home category, ...). The
// store itself, its admins, apps, tokens and webhook subscriptions stay; queued deliveries, idempotency keys and bulk
// jobs go (the CLI removes the jobs' files: an export of the old catalog must not outlive it).
import { sql } from 'kysely';
import { freshStoreDefaults } from '../db/migrations/0401_fresh_store_defaults.ts';
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
  for (const table of tables) rows += Number(((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()) as { n: number | string }).n);
  if (dialect === 'postgres') {
    await sql`truncate table ${sql.join(tables.map((t) => sql.table(t)))} restart identity cascade`.execute(db);
  } else if (dialect === 'mysql') {
    // One connection: the switch holds for it only.
    await db.connection().execute(async (connection) => {
      await sql`set foreign_key_checks = 0`.execute(connection);
      try {
        for (const table of tables) await sql`truncate table ${sql.table(table)}`.execute(connection);
      } finally {
        await sql`set foreign_key_checks = 1`.execute(connection);
      }
    });
  } else {
    await db.transaction().execute(async (trx) => {
      // Rows referring to each other go in any order; the checks run at the commit, when none is left.
      await sql`pragma defer_foreign_keys = on`.execute(trx);
      for (const table of tables) await trx.deleteFrom(table).execute();
      await sql`delete from sqlite_sequence where name in (${sql.join(tables)})`.execute(trx);
    });
  }
  await freshStoreDefaults.up(db, dialect);
  return rows;
}
