// A transaction the database rolls back as a deadlock's victim counts as "busy": the request is answered 503 with
// Retry-After, which is safe to retry since nothing of it was kept, instead of a 500 (racing orders met this on MariaDB).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { testDatabaseTargets } from '@app/database/testing';
import { sql, type Kysely } from 'kysely';
import { isBusyDatabase } from '../src/db/busy-database.ts';

for (const target of (await testDatabaseTargets()).filter((t) => t.dialect !== 'sqlite')) {
  describe(`a deadlock on ${target.name}`, { skip: target.skip }, () => {
    test("the victim's error is a busy database", async () => {
      const throwaway = await target.create();
      const database = await openDatabase<{ rows: { id: number; n: number } }>(throwaway.url);
      const db: Kysely<{ rows: { id: number; n: number } }> = database.db;
      try {
        await db.schema
          .createTable('rows')
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('n', 'integer')
          .execute();
        await db
          .insertInto('rows')
          .values([
            { id: 1, n: 0 },
            { id: 2, n: 0 },
          ])
          .execute();
        let release: () => void = () => undefined;
        const bothLocked = new Promise<void>((resolve) => (release = resolve));
        let locked = 0;
        // Each locks one row, waits for the other to lock the other, then wants the other's row.
        const crossing = (first: number, second: number) =>
          db.transaction().execute(async (trx) => {
            await trx
              .updateTable('rows')
              .set({ n: sql`n + 1` })
              .where('id', '=', first)
              .execute();
            if (++locked === 2) release();
            await bothLocked;
            await trx
              .updateTable('rows')
              .set({ n: sql`n + 1` })
              .where('id', '=', second)
              .execute();
          });
        const outcomes = await Promise.allSettled([crossing(1, 2), crossing(2, 1)]);
        const victims = outcomes.filter((o) => o.status === 'rejected');
        assert.equal(victims.length, 1, 'one transaction is the victim');
        const [victim] = victims;
        assert.ok(victim?.status === 'rejected');
        assert.equal(isBusyDatabase(victim.reason), true, String(victim.reason));
      } finally {
        await database.close();
        await throwaway.drop();
      }
    });
  });
}
