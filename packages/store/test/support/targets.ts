// The services a suite may need beyond the database matrix.
import { testDatabaseTargets, type TestDatabaseTarget } from '@app/database/testing';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** SQLite, for suites whose subject does not depend on the database. */
export async function sqliteTarget(): Promise<TestDatabaseTarget> {
  const found = (await testDatabaseTargets()).find((t) => t.dialect === 'sqlite');
  if (found === undefined) throw new Error('SQLite is always a test target');
  return found;
}

/** False when Redis answers; otherwise the reason, printed, for node:test's `skip`. */
export async function redisSkip(): Promise<string | false> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  try {
    await probe.connect();
    await probe.ping();
    return false;
  } catch (error) {
    const reason = `Redis not reachable at ${REDIS_URL} (${error instanceof Error ? error.message : String(error)})`;
    // CI sets this: there, a missing server is a failure, never a quiet skip.
    if (process.env.REQUIRE_ALL_DATABASES === '1') throw new Error(`${reason}, and REQUIRE_ALL_DATABASES=1`);
    console.log(`# skipping: ${reason}`);
    return reason;
  } finally {
    probe.disconnect();
  }
}
