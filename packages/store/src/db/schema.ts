import type { Database } from '@app/database';

/** Resource tables are declared at run time, so rows are plain records keyed by column name. */
export type Row = Record<string, unknown>;
export type StoreSchema = Record<string, Row>;
export type StoreDatabase = Database<StoreSchema>;
