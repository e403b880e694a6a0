import type { Database } from '@app/database';

/** Resource tables are declared at run time, so rows are plain records keyed by column name. */
export type Row = Record<string, unknown>;
export type StoreSchema = Record<string, Row>;
export type StoreDatabase = Database<StoreSchema>;

/** A column value as text: strings as they are, numbers in decimal, anything else (null) empty. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' ? String(value) : '';
}
