// The time a store's writes are stamped with. Real time, unless the store runs on a clock of its own (a sandbox
// store's movable clock, the demo seed's fixed one); kept per database, as each store serves its own.
import type { StoreDatabase } from './schema.ts';

const clocks = new WeakMap<StoreDatabase, () => number>();

export function setDatabaseClock(database: StoreDatabase, now: () => number): void {
  clocks.set(database, now);
}

/** Milliseconds since the epoch on this database's clock. */
export function databaseNow(database: StoreDatabase): number {
  return (clocks.get(database) ?? Date.now)();
}
