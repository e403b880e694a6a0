// Console sessions: a random cookie value, stored hashed, with a CSRF token derived from it.
import type { AuthContext } from './context.ts';
import { iso } from './iso-time.ts';
import { deriveSecret } from './derived-secret.ts';
import { findAdmin, type Admin } from './admins.ts';
import { hashSecret, newSecret, sameText } from './token-secret.ts';

export interface Session {
  id: number;
  admin: Admin;
  expiresAt: string;
}

export async function startSession(ctx: AuthContext, admin: Admin): Promise<{ cookie: string; expiresAt: string }> {
  const cookie = newSecret();
  const expiresAt = iso(ctx.now() + ctx.lifetimes.sessionMs);
  await ctx.db
    .insertInto('admin_sessions')
    .values({
      session_hash: hashSecret(cookie),
      admin_user_id: admin.id,
      created_at: iso(ctx.now()),
      expires_at: expiresAt,
      ended_at: null,
    })
    .execute();
  await ctx.db.deleteFrom('admin_sessions').where('expires_at', '<', iso(ctx.now())).execute();
  return { cookie, expiresAt };
}

export async function findSession(ctx: AuthContext, cookie: string): Promise<Session | undefined> {
  const row = await ctx.db
    .selectFrom('admin_sessions')
    .select(['id', 'admin_user_id', 'expires_at', 'ended_at'])
    .where('session_hash', '=', hashSecret(cookie))
    .executeTakeFirst();
  if (row === undefined || row.ended_at !== null || row.expires_at <= iso(ctx.now())) return undefined;
  const admin = await findAdmin(ctx, row.admin_user_id);
  return admin === undefined ? undefined : { id: row.id, admin, expiresAt: row.expires_at };
}

export async function endSession(ctx: AuthContext, cookie: string): Promise<void> {
  await ctx.db
    .updateTable('admin_sessions')
    .set({ ended_at: iso(ctx.now()) })
    .where('session_hash', '=', hashSecret(cookie))
    .where('ended_at', 'is', null)
    .execute();
}

/**
 * The CSRF token for forms: bound to the session cookie (or, before sign-in, to a pre-session
 * cookie), so a page on another site can neither read nor forge it.
 */
export function csrfToken(ctx: AuthContext, cookie: string): string {
  return deriveSecret(ctx.key, 'csrf', cookie);
}

export function csrfMatches(ctx: AuthContext, cookie: string, given: unknown): boolean {
  return typeof given === 'string' && sameText(csrfToken(ctx, cookie), given);
}
