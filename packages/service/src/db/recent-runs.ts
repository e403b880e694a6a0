// A domain's finished runs around a given one, newest last, for what a watch follows over time
// (its DNSSEC rollovers): their ids and ends; the query logs are read one by one by the caller.
import type { Kysely } from 'kysely';
import type { ServiceSchema } from './tables.ts';

export interface RecentRun {
  rowId: number;
  hashId: string;
  /** ISO 8601 UTC. */
  endedAt: string;
}

/** Up to `limit` finished runs of `domain` (delegated or not, as `undelegated` says) that ended within `sinceIso`..`untilIso`. */
export async function recentRuns(
  db: Kysely<ServiceSchema>,
  domain: string,
  undelegated: boolean,
  sinceIso: string,
  untilIso: string,
  limit: number,
): Promise<RecentRun[]> {
  const rows = await db
    .selectFrom('dh_test')
    .select(['id', 'hash_id', 'ended_at'])
    .where('domain', '=', domain)
    .where('progress', '=', 100)
    .where('undelegated', '=', undelegated)
    .where('ended_at', '>=', sinceIso)
    .where('ended_at', '<=', untilIso)
    .orderBy('ended_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows
    .filter((row): row is typeof row & { ended_at: string } => row.ended_at !== null)
    .map((row) => ({ rowId: row.id, hashId: row.hash_id, endedAt: row.ended_at }))
    .reverse();
}
