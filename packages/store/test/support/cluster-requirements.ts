// What a store cluster test needs on the machine: HAProxy, PostgreSQL's server binaries and redis-server.
import { existsSync } from 'node:fs';
import { privatePostgresUnavailableReason } from '@app/database/testing';
import { HAPROXY } from '../../scripts/cluster/cluster.ts';
import { redisServerInstalled } from './private-redis.ts';

/** Why a cluster cannot start here (for `skip`), or false when it can; under CI=true a missing one throws instead. */
export function clusterUnavailableReason(): string | false {
  const reasons = [
    ...(existsSync(HAPROXY) ? [] : [`HAProxy is not installed (${HAPROXY})`]),
    ...[privatePostgresUnavailableReason()].filter((reason) => reason !== undefined),
    ...(redisServerInstalled() ? [] : ['redis-server is not installed']),
  ];
  if (reasons.length === 0) return false;
  const reason = reasons.join('; ');
  // CI installs all three (.ci/run): there a missing one is a failure, never a quiet skip.
  if (process.env.CI === 'true') throw new Error(`${reason}, and CI=true`);
  console.log(`# skipping: ${reason}`);
  return reason;
}
