// Auth schema steps. Named 0100_auth_* so they sort after the core's 00xx steps.
import { withIdColumn, type ProductMigration } from '@app/database';

export const authMigrations: Record<string, ProductMigration> = {
  '0100_auth_apps': {
    up: async (db, dialect) => {
      await withIdColumn(db.schema.createTable('api_apps'), dialect)
        .addColumn('store_id', 'integer', (c) => c.notNull().references('stores.id').onDelete('cascade'))
        .addColumn('name', 'varchar(100)', (c) => c.notNull())
        .addColumn('client_id', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('secret_nonce', 'varchar(64)', (c) => c.notNull())
        .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('redirect_uri', 'varchar(2000)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('api_apps_store_name', ['store_id', 'name'])
        .execute();
    },
  },
  '0101_auth_tokens': {
    up: async (db, dialect) => {
      await withIdColumn(db.schema.createTable('api_tokens'), dialect)
        .addColumn('store_id', 'integer', (c) => c.notNull())
        .addColumn('app_id', 'integer', (c) => c.notNull().references('api_apps.id').onDelete('cascade'))
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('label', 'varchar(100)', (c) => c.notNull())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('refresh_hash', 'varchar(64)', (c) => c.unique())
        .addColumn('scopes', 'varchar(500)', (c) => c.notNull())
        .addColumn('admin_user_id', 'integer')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)')
        .addColumn('refresh_expires_at', 'varchar(32)')
        .addColumn('revoked_at', 'varchar(32)')
        .execute();
      await db.schema.createIndex('api_tokens_app').on('api_tokens').column('app_id').execute();
    },
  },
  '0102_auth_oauth_codes': {
    up: async (db, dialect) => {
      await withIdColumn(db.schema.createTable('oauth_codes'), dialect)
        .addColumn('store_id', 'integer', (c) => c.notNull())
        .addColumn('auth_id', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('app_id', 'integer', (c) => c.notNull().references('api_apps.id').onDelete('cascade'))
        .addColumn('admin_user_id', 'integer', (c) => c.notNull())
        .addColumn('code_nonce', 'varchar(64)', (c) => c.notNull())
        .addColumn('code_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('scope_text', 'varchar(500)', (c) => c.notNull())
        .addColumn('scopes', 'varchar(500)', (c) => c.notNull())
        .addColumn('redirect_uri', 'varchar(2000)', (c) => c.notNull())
        .addColumn('code_challenge', 'varchar(128)')
        .addColumn('code_challenge_method', 'varchar(8)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('used_at', 'varchar(32)')
        .addColumn('token_id', 'integer')
        .execute();
    },
  },
  '0103_auth_sessions': {
    up: async (db, dialect) => {
      // The core's `users` are the console's admins; auth adds which resource groups each may see.
      await db.schema
        .alterTable('users')
        .addColumn('access', 'varchar(255)', (c) => c.notNull().defaultTo('catalog orders people content marketing settings'))
        .execute();
      await withIdColumn(db.schema.createTable('admin_sessions'), dialect)
        .addColumn('session_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('admin_user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('ended_at', 'varchar(32)')
        .execute();
      await withIdColumn(db.schema.createTable('admin_login_attempts'), dialect)
        .addColumn('email', 'varchar(254)', (c) => c.notNull())
        .addColumn('at', 'varchar(32)', (c) => c.notNull())
        .addColumn('succeeded', 'boolean', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('admin_login_attempts_email_at').on('admin_login_attempts').columns(['email', 'at']).execute();
    },
  },
  '0104_auth_customer_tax_id': {
    // Encrypted at rest: AES-GCM text is longer than the 100 characters a client may send.
    up: async (db) => {
      await db.schema.alterTable('customers').addColumn('tax_id', 'varchar(400)').execute();
    },
  },
  '0105_auth_revocation_revision': {
    // One counter, raised whenever a token stops working before its time: every instance polls it and
    // drops the principals it has cached when it moves, so a revocation reaches them all at once.
    up: async (db) => {
      await db.schema
        .createTable('auth_revision')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .execute();
      await db.insertInto('auth_revision').values({ id: 1, revision: 0 }).execute();
    },
  },
  '0106_auth_login_attempt_address': {
    // Lockout counts per account and address, so one address's guesses lock out only that address.
    up: async (db) => {
      await db.schema.alterTable('admin_login_attempts').addColumn('address', 'varchar(64)').execute();
    },
  },
  '0107_auth_token_family': {
    // The first token of an OAuth grant heads its family; each refresh's token joins it, so a replayed
    // refresh token or code can revoke everything the grant became (RFC 6819 5.2.2.3).
    up: async (db) => {
      await db.schema.alterTable('api_tokens').addColumn('family_id', 'integer').execute();
      await db.schema.createIndex('api_tokens_family').on('api_tokens').column('family_id').execute();
    },
  },
};
