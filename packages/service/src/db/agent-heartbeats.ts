// Agents say they are alive: a row per agent with when it was last seen, written on start and with
// every lease renewal, and removed when it stops.
import type { Kysely } from 'kysely';
import type { ServiceSchema } from './tables.ts';
import { now } from './timestamps.ts';

export async function recordHeartbeat(db: Kysely<ServiceSchema>, agent: string): Promise<void> {
  const seen_at = now();
  const updated = await db.updateTable('dh_agent').set({ seen_at }).where('name', '=', agent).executeTakeFirst();
  // An agent name is unique to one process, so nobody else inserts it meanwhile.
  if (Number(updated.numUpdatedRows) === 0) await db.insertInto('dh_agent').values({ name: agent, seen_at }).execute();
}

export async function removeHeartbeat(db: Kysely<ServiceSchema>, agent: string): Promise<void> {
  await db.deleteFrom('dh_agent').where('name', '=', agent).execute();
}
