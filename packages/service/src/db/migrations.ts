import { longTextType, withIdColumn, type ProductMigration } from '@app/database';
import { sql } from 'kysely';

/** Name under which the service keeps its migration book. */
export const PRODUCT = 'domain_health';

export const migrations: Record<string, ProductMigration> = {
  '0001_tests_batches_users': {
    up: async (db, dialect) => {
      // Usernames are case-sensitive; MariaDB compares text case-insensitively unless told otherwise.
      const username = dialect === 'mysql' ? sql`varchar(50) binary` : sql`varchar(50)`;
      await withIdColumn(db.schema.createTable('dh_user'), dialect)
        .addColumn('username', username, (c) => c.notNull().unique())
        .addColumn('api_key_hash', 'varchar(200)', (c) => c.notNull())
        .execute();
      await withIdColumn(db.schema.createTable('dh_batch'), dialect)
        .addColumn('username', username, (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dh_batch_username').on('dh_batch').column('username').execute();
      await withIdColumn(db.schema.createTable('dh_test'), dialect)
        .addColumn('hash_id', 'varchar(16)', (c) => c.notNull().unique())
        .addColumn('domain', 'varchar(255)', (c) => c.notNull())
        .addColumn('batch_id', 'integer', (c) => c.references('dh_batch.id'))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('started_at', 'varchar(32)')
        .addColumn('ended_at', 'varchar(32)')
        .addColumn('priority', 'integer', (c) => c.notNull())
        .addColumn('queue', 'integer', (c) => c.notNull())
        .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
        .addColumn('undelegated', 'boolean', (c) => c.notNull())
        .addColumn('profile', 'varchar(32)', (c) => c.notNull())
        .addColumn('params', 'text', (c) => c.notNull())
        .addColumn('overall_result', 'varchar(16)')
        .execute();
      // The agent's claim: waiting tests of a queue, highest priority first, then oldest.
      await db.schema.createIndex('dh_test_claim').on('dh_test').columns(['progress', 'queue', 'priority', 'id']).execute();
      await db.schema.createIndex('dh_test_fingerprint').on('dh_test').columns(['fingerprint', 'created_at']).execute();
      await db.schema.createIndex('dh_test_domain').on('dh_test').columns(['domain', 'progress', 'created_at']).execute();
      await db.schema.createIndex('dh_test_batch').on('dh_test').columns(['batch_id', 'progress']).execute();
      await withIdColumn(db.schema.createTable('dh_result_entry'), dialect)
        .addColumn('test_id', 'integer', (c) => c.notNull().references('dh_test.id').onDelete('cascade'))
        .addColumn('module', 'varchar(64)', (c) => c.notNull())
        .addColumn('testcase', 'varchar(64)', (c) => c.notNull())
        .addColumn('tag', 'varchar(128)', (c) => c.notNull())
        .addColumn('level', 'varchar(16)', (c) => c.notNull())
        .addColumn('args', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'double precision', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dh_result_entry_test').on('dh_result_entry').column('test_id').execute();
    },
  },
  '0002_agent_claims': {
    up: async (db) => {
      // Which agent runs a test, until when its claim holds (renewed while it runs), and how many
      // runs were cut short, so a test whose agent died is taken up again, but not forever.
      await db.schema.alterTable('dh_test').addColumn('agent', 'varchar(100)').execute();
      await db.schema.alterTable('dh_test').addColumn('lease_until', 'varchar(32)').execute();
      await db.schema
        .alterTable('dh_test')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0003_test_evidence': {
    up: async (db, dialect) => {
      // Each finished test's query log (gzip, base64: a few hundred queries with their replies), and while
      // it runs, what it is doing (test cases done, queries still unanswered) as JSON.
      await db.schema
        .createTable('dh_test_queries')
        .addColumn('test_id', 'integer', (c) => c.primaryKey().references('dh_test.id').onDelete('cascade'))
        .addColumn('log', dialect === 'mysql' ? sql`longtext` : 'text', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('dh_test').addColumn('activity', 'varchar(2000)').execute();
    },
  },
  '0004_test_chain': {
    up: async (db, dialect) => {
      // The delegation and DNSSEC chain of a finished test (the engine's analysis as JSON), for
      // get_test_chain. MariaDB's text holds 64 KB; a chain with many keys can be larger.
      await db.schema
        .createTable('dh_test_chain')
        .addColumn('test_id', 'integer', (c) => c.primaryKey().references('dh_test.id').onDelete('cascade'))
        .addColumn('analysis', longTextType(dialect), (c) => c.notNull())
        .execute();
    },
  },
  '0005_agent_heartbeats': {
    up: async (db) => {
      // Idle agents hold no lease, so "is any agent alive" needs a heartbeat of its own.
      await db.schema
        .createTable('dh_agent')
        .addColumn('name', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('seen_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  },
  '0006_watches': {
    up: async (db, dialect) => {
      // Scheduled re-tests. next_run_at is the compare-and-set token that lets one instance, and only one,
      // enqueue a due run; pending_test is that run until someone compares it with last_test and alerts.
      const username = dialect === 'mysql' ? sql`varchar(50) binary` : sql`varchar(50)`;
      await withIdColumn(db.schema.createTable('dh_watch'), dialect)
        .addColumn('username', username)
        .addColumn('domain', 'varchar(255)', (c) => c.notNull())
        .addColumn('params', 'text', (c) => c.notNull())
        .addColumn('schedule', 'varchar(32)', (c) => c.notNull())
        .addColumn('language', 'varchar(8)', (c) => c.notNull())
        .addColumn('webhook_url', 'varchar(2000)')
        .addColumn('webhook_secret', 'varchar(128)')
        .addColumn('email', 'varchar(254)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('next_run_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('pending_test', 'varchar(16)')
        .addColumn('last_test', 'varchar(16)')
        .execute();
      await db.schema.createIndex('dh_watch_due').on('dh_watch').columns(['next_run_at']).execute();
      await db.schema.createIndex('dh_watch_domain').on('dh_watch').columns(['domain']).execute();
    },
  },
  '0007_batch_covering_index': {
    up: async (db, dialect) => {
      // get_batch_job_result reads a batch's ids and progress in id order: from the index alone, with
      // no visit to the rows (half the time for a 10,000-test batch on PostgreSQL). PostgreSQL keeps
      // the extra columns out of the key; elsewhere they are the key's tail.
      if (dialect === 'postgres')
        await sql`create index dh_test_batch_ids on dh_test (batch_id, id) include (hash_id, progress)`.execute(db);
      else await db.schema.createIndex('dh_test_batch_ids').on('dh_test').columns(['batch_id', 'id', 'hash_id', 'progress']).execute();
    },
  },
  '0008_batch_revision': {
    up: async (db) => {
      // Raised in the transaction that finishes one of the batch's tests or purges some: an API process
      // reuses its get_batch_job_result answer while the revision stands (a primary-key read), instead
      // of reading and sending 10,000 ids again for every poll of a batch that has not moved.
      await db.schema
        .alterTable('dh_batch')
        .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0009_history_covering_index': {
    up: async (db, dialect) => {
      // get_test_history reads a domain's finished tests newest first (created_at, then id) with the
      // four columns it answers: from the index alone, in its order, with no sort and no visit to the
      // rows, which in a long history lie one per page. It replaces dh_test_domain, its prefix.
      if (dialect === 'postgres') {
        await sql`create index dh_test_history on dh_test (domain, progress, created_at, id) include (hash_id, undelegated, overall_result)`.execute(
          db,
        );
      } else {
        await db.schema
          .createIndex('dh_test_history')
          .on('dh_test')
          .columns(['domain', 'progress', 'created_at', 'id', 'hash_id', 'undelegated', 'overall_result'])
          .execute();
      }
      const old = db.schema.dropIndex('dh_test_domain');
      await (dialect === 'mysql' ? old.on('dh_test') : old).execute();
    },
  },
  '0010_domain_revision': {
    up: async (db) => {
      // As a batch's revision (0008), for a domain's history: raised in the transaction that finishes
      // one of its tests or purges some, so an API process reuses its get_test_history answers while
      // the revision stands (a primary-key read). A domain gets its row when its first test finishes
      // after this migration; until then its revision is 0.
      await db.schema
        .createTable('dh_domain_revision')
        .addColumn('domain', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .execute();
    },
  },
  '0011_test_results_in_one_row': {
    up: async (db, dialect) => {
      // A finished test's findings in one value (gzip'd JSON, base64) instead of a row each: a test's
      // 250 or so findings took 42 kB as rows with their indexes, 4 kB so. Older tests keep their rows.
      await db.schema
        .createTable('dh_test_result')
        .addColumn('test_id', 'integer', (c) => c.primaryKey().references('dh_test.id').onDelete('cascade'))
        .addColumn('entries', longTextType(dialect), (c) => c.notNull())
        .execute();
    },
  },
  '0012_claim_in_index_order': {
    up: async (db, dialect) => {
      // The claim asks for the highest priority first, then the oldest: the index kept both ascending, so each claim
      // sorted every waiting test of the queue (63 ms with 93,000 waiting on PostgreSQL, two backends busy the whole
      // batch, its cost falling as the batch drained). In the claim's own order the first waiting test is the first
      // entry (0.06 ms).
      const old = db.schema.dropIndex('dh_test_claim');
      await (dialect === 'mysql' ? old.on('dh_test') : old).execute();
      await sql`create index dh_test_claim on dh_test (progress, queue, priority desc, id)`.execute(db);
    },
  },
};
