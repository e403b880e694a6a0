// Which database errors mean "busy, retry": real lock conflicts made on each database, classified by
// isDatabaseBusy (the envelope then answers "Database busy, please retry"); other errors are not busy.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDatabase, type Database } from '@app/database';
import { testDatabaseTargets } from '@app/database/testing';
import { sql } from 'kysely';
import { isDatabaseBusy } from '../src/db/busy-error.ts';
import { settle } from './rpc-harness.ts';

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  assert.fail('expected the statement to fail');
}

for (const target of await testDatabaseTargets()) {
  describe(`a lock held elsewhere on ${target.name}`, { skip: target.skip }, () => {
    test('a write that waits out its lock timeout is busy; a syntax error is not', async () => {
      const throwaway = await target.create();
      const url = throwaway.url;
      const holder: Database<unknown> = await openDatabase(url);
      const waiter: Database<unknown> = await openDatabase(url, { poolSize: 1 });
      try {
        await sql`create table t (id integer primary key, v integer)`.execute(holder.db);
        await sql`insert into t (id, v) values (1, 0)`.execute(holder.db);
        const conflict = await holder.db.connection().execute(async (held) => {
          if (target.dialect === 'sqlite') await sql`begin exclusive`.execute(held);
          else await sql`begin`.execute(held);
          if (target.dialect !== 'sqlite') await sql`update t set v = 1 where id = 1`.execute(held);
          try {
            return await waiter.db.connection().execute(async (waiting) => {
              if (target.dialect === 'postgres') await sql`set lock_timeout = '200ms'`.execute(waiting);
              if (target.dialect === 'mysql') await sql`set innodb_lock_wait_timeout = 1`.execute(waiting);
              if (target.dialect === 'sqlite') await sql`pragma busy_timeout = 100`.execute(waiting);
              return failure(() => sql`update t set v = 2 where id = 1`.execute(waiting));
            });
          } finally {
            await sql`rollback`.execute(held);
          }
        });
        assert.equal(isDatabaseBusy(conflict), true, String(conflict));
        assert.equal(isDatabaseBusy(await failure(() => sql`selec nothing`.execute(waiter.db))), false);
        assert.equal(isDatabaseBusy(new Error('database is locked')), false, 'only the driver’s own error says so');
      } finally {
        await waiter.close();
        await holder.close();
        await settle();
        await throwaway.drop();
      }
    });
  });
}
