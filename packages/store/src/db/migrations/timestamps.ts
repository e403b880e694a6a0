import type { CreateTableBuilder } from 'kysely';

/** created_at / updated_at as ISO 8601 UTC text, which sorts correctly on every database. */
export function timestamps<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, never> {
  return table.addColumn('created_at', 'varchar(32)', (c) => c.notNull()).addColumn('updated_at', 'varchar(32)', (c) => c.notNull());
}
