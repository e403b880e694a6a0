import type { ProductMigration } from '@app/database';
import { sql } from 'kysely';

// The event log's order (webhooks/event-sequencer.ts): `seq`, given to rows once they are committed, in one
// writer at a time, so a reader passing a position never has a lower one still to come. Rows already there take
// their id, so cursors made before (which carried ids) keep their place. `event_sequencer` holds the one row the
// sequencer locks on PostgreSQL and MariaDB.
export const eventSequence: ProductMigration = {
  up: async (db, dialect) => {
    await db.schema.alterTable('event_log').addColumn('seq', 'bigint').execute();
    await db
      .updateTable('event_log')
      .set({ seq: sql`id` })
      .execute();
    await db.schema.createIndex('event_log_seq').on('event_log').column('seq').unique().execute();
    await db.schema.createIndex('event_log_type_seq').on('event_log').columns(['event_type', 'seq']).execute();
    // The listing by type now goes by seq; MariaDB names the table an index is dropped from, the others do not.
    const drop = db.schema.dropIndex('event_log_type');
    await (dialect === 'mysql' ? drop.on('event_log') : drop).execute();
    await db.schema
      .createTable('event_sequencer')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .execute();
    await db.insertInto('event_sequencer').values({ id: 1 }).execute();
  },
};
