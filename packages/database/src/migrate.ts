import type { Kysely } from 'kysely';
import { Migrator, type MigrationResult } from 'kysely/migration';
import type { Database } from './open-database.ts';
import type { DialectName } from './url.ts';

/**
 * One schema step. It receives the dialect because a few column kinds (auto-increment ids)
 * are spelled differently on each database.
 */
export interface ProductMigration {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration sees the schema as it was, not as it is typed now
  up(db: Kysely<any>, dialect: DialectName): Promise<void>;
}

export class MigrationError extends Error {
  constructor(product: string, step: string | undefined, cause: unknown) {
    super(`Migration ${step ?? '(setup)'} of ${product} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MigrationError';
  }
}

/**
 * Brings a product's schema up to date. Steps run in name order; each product keeps its own
 * bookkeeping tables, so two products may share one database.
 */
export async function migrateToLatest<DB>(
  database: Database<DB>,
  product: string,
  migrations: Record<string, ProductMigration>,
): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db as Kysely<unknown>,
    migrationTableName: `${product}_migrations`,
    migrationLockTableName: `${product}_migrations_lock`,
    provider: {
      getMigrations: () =>
        Promise.resolve(
          Object.fromEntries(
            Object.entries(migrations).map(([name, step]) => [name, { up: (db: Kysely<unknown>) => step.up(db, database.dialect) }]),
          ),
        ),
    },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r: MigrationResult) => r.status === 'Error');
    throw new MigrationError(product, failed?.migrationName, error);
  }
  return (results ?? []).map((r) => r.migrationName);
}
