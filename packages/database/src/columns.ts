import { sql, type CreateTableBuilder, type RawBuilder } from 'kysely';
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

/** A column type for long texts: MariaDB's TEXT stops at 64 KB, so there it is MEDIUMTEXT (16 MB). */
export function longTextType(dialect: DialectName): 'text' | RawBuilder<unknown> {
  return dialect === 'mysql' ? sql`mediumtext` : 'text';
}
