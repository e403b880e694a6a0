// Session locks free themselves with their holder: a process SIGKILLed, or its connection cut by the server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { holdSessionLock, openDatabase, type SessionLock } from '../src/index.ts';
import { testDatabaseTargets, type ThrowawayDatabase } from '../src/testing.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean> | boolean, withinMs = 5000): Promise<number> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > withinMs) assert.fail(`${what}: not within ${withinMs} ms`);
    await sleep(20);
  }
  return performance.now() - start;
}

test('SQLite has no session locks', async () => {
  assert.equal(await holdSessionLock('sqlite::memory:', 'a'), undefined);
});

for (const target of await testDatabaseTargets()) {
  if (target.dialect === 'sqlite') continue;
  describe(`session locks on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let watcher: SessionLock;
    before(async () => {
      throwaway = await target.create();
      watcher = (await holdSessionLock(throwaway.url, `watcher-${process.pid}`)) as SessionLock;
    });
    after(async () => {
      await watcher?.close();
      await throwaway?.drop();
    });

    test('a lock is held while its holder lives, and free once it closes', async () => {
      const a = (await holdSessionLock(throwaway.url, 'holder-a')) as SessionLock;
      assert.equal(a.held, true);
      assert.deepEqual(
        await watcher.heldOf(['holder-a', 'holder-b', `watcher-${process.pid}`]),
        new Set(['holder-a', `watcher-${process.pid}`]),
      );
      await a.close();
      assert.equal(a.held, false);
      assert.deepEqual(await watcher.heldOf(['holder-a']), new Set());
    });

    test('a holder SIGKILLed lets go at once', async () => {
      const script = `import { holdSessionLock } from ${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)};
        await holdSessionLock(${JSON.stringify(throwaway.url)}, 'killed-holder');
        console.log('held');
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      assert.equal(line.toString().trim(), 'held');
      assert.deepEqual(await watcher.heldOf(['killed-holder']), new Set(['killed-holder']));
      child.kill('SIGKILL');
      await once(child, 'exit');
      const freedMs = await until('the killed holder lock freed', async () => (await watcher.heldOf(['killed-holder'])).size === 0, 2000);
      console.log(`# freed ${freedMs.toFixed(0)} ms after the holder's exit`);
    });

    test('a connection the server cuts: not held meanwhile, taken again after', async () => {
      const a = (await holdSessionLock(throwaway.url, 'cut-holder', { retryMs: 100 })) as SessionLock;
      try {
        const admin = await openDatabase(throwaway.url);
        try {
          // Every connection holding a session lock in this database: the watcher's too.
          if (target.dialect === 'postgres') {
            await sql`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted
              and database = (select oid from pg_database where datname = current_database())`.execute(admin.db);
          } else {
            const { rows } = await sql<{
              id: number;
            }>`select id from information_schema.processlist where id <> connection_id() and db = database()`.execute(admin.db);
            for (const row of rows)
              await sql
                .raw(`kill ${Number(row.id)}`)
                .execute(admin.db)
                .catch(() => undefined);
          }
        } finally {
          await admin.close();
        }
        await until('the cut lock seen as not held', () => !a.held);
        await until('the lock taken again', () => a.held);
        await until('the watcher back', () => watcher.held);
        assert.deepEqual(await watcher.heldOf(['cut-holder']), new Set(['cut-holder']));
      } finally {
        await a.close();
      }
    });
  });
}
