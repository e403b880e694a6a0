import type { CreateTableBuilder } from 'kysely';
import type { DialectName } from './url.ts';

/** An auto-increment integer primary key, spelled as each database wants it. */
export function withIdColumn<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
  name = 'id',
): CreateTableBuilder<T, never> {
  if (dialect === 'postgres') return table.addColumn(name, 'serial', (c) => c.primaryKey());
  return table.addColumn(name, 'integer', (c) => c.primaryKey().autoIncrement());
}
