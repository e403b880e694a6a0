// A suite run once on each test database (TEST_DATABASES; one that is missing is skipped with the reason), against
// a real store started before its tests and closed after them: the set-up every database-wide suite shares.
import { after, before, describe } from 'node:test';
import { testDatabaseTargets, type TestDatabaseTarget } from '@app/database/testing';
import type { ServeOptions } from '../../src/server.ts';
import { startStoreUnderTest, type StoreUnderTest } from './store-under-test.ts';

/**
 * `describe(title on <database>)` once per database. `body` gets the store while its tests are declared, before the
 * store runs: read it inside hooks and tests only. Its own `before` hooks run once the store has started.
 */
export async function describeOnEachDatabase(
  title: string,
  body: (s: StoreUnderTest, target: TestDatabaseTarget) => void,
  serve: Partial<ServeOptions> = {},
): Promise<void> {
  for (const target of await testDatabaseTargets()) {
    describe(`${title} on ${target.name}`, { skip: target.skip }, () => {
      let started: StoreUnderTest | undefined;
      const running = (): StoreUnderTest => {
        if (started === undefined) throw new Error(`the store of "${title}" is read before it started`);
        return started;
      };
      before(async () => {
        started = await startStoreUnderTest(target, serve);
      });
      after(() => started?.close());
      body(
        {
          get store() {
            return running().store;
          },
          get api() {
            return running().api;
          },
          get databaseUrl() {
            return running().databaseUrl;
          },
          call: (...args) => running().call(...args),
          close: () => running().close(),
        },
        target,
      );
    });
  }
}
