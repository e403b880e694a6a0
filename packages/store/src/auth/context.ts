// What every auth operation needs: the database, the server's key, the clock and the policies.
import type { DialectName } from '@app/database';
import type { Kysely } from 'kysely';
import { lifetimes as defaultLifetimes, type Lifetimes } from './lifetimes.ts';
import { defaultLockout, type LockoutPolicy } from './lockout.ts';
import { principalCache, type PrincipalCache } from './principal-cache.ts';
import { readRevision } from './revision.ts';
import type { AuthTables } from './schema.ts';

export interface AuthContext {
  db: Kysely<AuthTables>;
  /** MariaDB has no INSERT ... RETURNING; the few writes that need a new row's id ask differently there. */
  dialect: DialectName;
  /** Secret server key (at least 32 bytes) from which app secrets, codes and CSRF tokens derive. */
  key: Uint8Array;
  now: () => number;
  lifetimes: Lifetimes;
  lockout: LockoutPolicy;
  principals: PrincipalCache;
}

export function authContext(
  input: Pick<AuthContext, 'db' | 'dialect' | 'key'> & Partial<Omit<AuthContext, 'db' | 'dialect' | 'key'>>,
): AuthContext {
  if (input.key.length < 32) throw new Error('the auth key must have at least 32 bytes');
  return {
    now: Date.now,
    lifetimes: defaultLifetimes,
    lockout: defaultLockout,
    principals: principalCache(() => readRevision(input.db)),
    ...input,
  };
}
