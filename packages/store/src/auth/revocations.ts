// The revocation revision: raised whenever a token stops working before its time (revoked, or spent by
// a refresh or a replayed code). Every instance's principal cache polls it (see principal-cache.ts).
import type { AuthContext } from './context.ts';

/** Call after the revoking write has been made: other instances drop their cached principals on their next poll, this one at once. */
export async function recordRevocation(ctx: AuthContext): Promise<void> {
  await ctx.db
    .updateTable('auth_revision')
    .set((eb) => ({ revision: eb('revision', '+', 1) }))
    .where('id', '=', 1)
    .execute();
  ctx.principals.clear();
}
