// A migrated throwaway database per suite, and the agent settings the tests start from.
import { migrateToLatest, openDatabase, type Database } from '@app/database';
import type { ThrowawayDatabase, TestDatabaseTarget } from '@app/database/testing';
import { setTimeout as delay } from 'node:timers/promises';
import type { AgentConfig } from '../../src/agent/agent.ts';
import { loadProfiles } from '../../src/config/profiles.ts';
import { migrations, PRODUCT } from '../../src/db/migrations.ts';
import type { ServiceSchema } from '../../src/db/tables.ts';
import type { TestParams } from '../../src/db/test-params.ts';

export const profiles = loadProfiles(new Map([['default', { name: 'default', public: true }]]));

export function agentConfig(overrides: Partial<AgentConfig> = {}): AgentConfig {
  return {
    lockOnQueue: 0,
    frontendProcesses: 2,
    batchProcesses: 1,
    maxExecutionSeconds: 600,
    pollingIntervalSeconds: 0.05,
    maximalRetries: 1,
    ...overrides,
  };
}

export function params(domain: string, priority = 10, queue = 0): TestParams {
  return { domain, ipv4: true, ipv6: true, nameservers: [], ds_info: [], profile: 'default', priority, queue };
}

export async function migratedDatabase(
  target: TestDatabaseTarget,
): Promise<{ throwaway: ThrowawayDatabase; database: Database<ServiceSchema> }> {
  const throwaway = await target.create();
  const database = await openDatabase<ServiceSchema>(throwaway.url);
  await migrateToLatest(database, PRODUCT, migrations);
  return { throwaway, database };
}

/** Polls until `check` gives a value, or fails naming what was awaited. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(25);
  }
}

/** Progress of tests by domain. */
export async function progressByDomain(database: Database<ServiceSchema>): Promise<Map<string, number>> {
  const rows = await database.db.selectFrom('dh_test').select(['domain', 'progress']).execute();
  return new Map(rows.map((r) => [r.domain, r.progress]));
}
