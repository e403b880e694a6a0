// Console administrators: password sign-in with lockout after repeated failures.
import { randomBytes } from 'node:crypto';
import { dialectSqlOf } from '../db/dialects/of.ts';
import type { AuthContext } from './context.ts';
import { iso } from './iso-time.ts';
import { lockedUntil, type Attempt } from './lockout.ts';
import { hashPassword, verifyPassword } from '../accounts/password-hash.ts';
import type { ResourceGroup } from './scopes.ts';

export interface Admin {
  id: number;
  storeId: number;
  email: string;
  /** Resource groups this admin may see; a browser session may GET their API routes. */
  access: ResourceGroup[];
}

export const allGroups: readonly ResourceGroup[] = ['catalog', 'orders', 'people', 'content', 'marketing', 'settings'];

export class AdminInputError extends Error {
  override name = 'AdminInputError';
}

/** A password an admin may choose: long enough to resist guessing through the lockout. */
function passwordProblem(password: string): string | undefined {
  if (password.length < 10) return 'The password must have at least 10 characters.';
  if (password.length > 1024) return 'The password must have at most 1024 characters.';
  return undefined;
}

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function toAccess(text: string): ResourceGroup[] {
  return text.split(' ').filter((g): g is ResourceGroup => (allGroups as readonly string[]).includes(g));
}

export async function createAdmin(
  ctx: AuthContext,
  storeId: number,
  input: { email: string; password: string; access?: readonly ResourceGroup[] },
): Promise<Admin> {
  const email = normalizeEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) throw new AdminInputError('Give a valid email address.');
  const problem = passwordProblem(input.password);
  if (problem !== undefined) throw new AdminInputError(problem);
  const access = [...(input.access ?? allGroups)];
  const passwordHash = await hashPassword(input.password);
  const existing = await ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (existing !== undefined) {
    await ctx.db
      .updateTable('users')
      .set({ password_hash: passwordHash, access: access.join(' ') })
      .where('id', '=', existing.id)
      .execute();
    return { id: existing.id, storeId, email, access };
  }
  await ctx.db
    .insertInto('users')
    .values({
      store_id: storeId,
      email,
      password_hash: passwordHash,
      access: access.join(' '),
      created_at: iso(ctx.now()),
      updated_at: iso(ctx.now()),
    })
    .execute();
  const { id } = await ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { id, storeId, email, access };
}

export interface AdminListing extends Admin {
  createdAt: string;
}

export async function listAdmins(ctx: AuthContext, storeId: number): Promise<AdminListing[]> {
  const rows = await ctx.db
    .selectFrom('users')
    .select(['id', 'store_id', 'email', 'access', 'created_at'])
    .where('store_id', '=', storeId)
    .orderBy('email')
    .execute();
  return rows.map((r) => ({ id: r.id, storeId: r.store_id, email: r.email, access: toAccess(r.access), createdAt: r.created_at }));
}

/** A first password for an admin added in the console: shown once to whoever adds them, to pass on. */
export function newAdminPassword(): string {
  return randomBytes(15).toString('base64url');
}

/** Adds an admin from the console; unlike `createAdmin` (the CLI's), an existing email is an error, never a password reset. */
export async function addAdmin(
  ctx: AuthContext,
  storeId: number,
  input: { email: string; password: string; access: readonly ResourceGroup[] },
): Promise<Admin> {
  const email = normalizeEmail(input.email);
  if ((await ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()) !== undefined) {
    throw new AdminInputError(`There is already an admin with the email ${email}.`);
  }
  if (input.access.length === 0) throw new AdminInputError('Give the admin access to at least one area.');
  return createAdmin(ctx, storeId, input);
}

/**
 * Removes another admin of the same store, ending their sessions. Removing yourself is refused (ask another
 * admin, so the store is never left without one by mistake), and so is removing the store's last admin.
 */
export async function removeAdmin(ctx: AuthContext, by: Admin, id: number): Promise<void> {
  if (id === by.id) throw new AdminInputError('You cannot remove yourself; ask another admin to do it.');
  const admins = await ctx.db.selectFrom('users').select('id').where('store_id', '=', by.storeId).execute();
  if (!admins.some((a) => a.id === id)) throw new AdminInputError('There is no such admin.');
  if (admins.length <= 1) throw new AdminInputError('The store must keep at least one admin.');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('admin_sessions').where('admin_user_id', '=', id).execute();
    await trx.deleteFrom('users').where('id', '=', id).where('store_id', '=', by.storeId).execute();
  });
}

/**
 * Changes an admin's own password after checking the current one, as a sign-in does (so the same lockout
 * stops guessing through this form with a stolen session); every other session of theirs ends.
 */
export async function changePassword(
  ctx: AuthContext,
  admin: Admin,
  input: { current: string; next: string; repeated: string; keepSessionId: number; address: string },
): Promise<void> {
  const check = await signIn(ctx, admin.email, input.current, input.address);
  if (!check.ok)
    throw new AdminInputError(
      check.reason === 'locked' ? 'Too many wrong passwords; try again later.' : 'The current password is not right.',
    );
  const problem = passwordProblem(input.next);
  if (problem !== undefined) throw new AdminInputError(problem);
  if (input.next !== input.repeated) throw new AdminInputError('The new password and its repetition differ.');
  await ctx.db
    .updateTable('users')
    .set({ password_hash: await hashPassword(input.next) })
    .where('id', '=', admin.id)
    .execute();
  await ctx.db
    .updateTable('admin_sessions')
    .set({ ended_at: iso(ctx.now()) })
    .where('admin_user_id', '=', admin.id)
    .where('id', '!=', input.keepSessionId)
    .where('ended_at', 'is', null)
    .execute();
}

export async function findAdmin(ctx: AuthContext, id: number): Promise<Admin | undefined> {
  const row = await ctx.db.selectFrom('users').select(['id', 'store_id', 'email', 'access']).where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : { id: row.id, storeId: row.store_id, email: row.email, access: toAccess(row.access) };
}

// Same cost as real hashes; matches no password.
const UNKNOWN_ACCOUNT_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export type SignInResult =
  { ok: true; admin: Admin } | { ok: false; reason: 'bad-credentials' } | { ok: false; reason: 'locked'; until: number };

/**
 * Checks a password. An account locked for this address (or for all) answers `locked` without
 * checking, so guessing stops even with the right password; unknown accounts are counted too, so both look alike.
 *
 * The attempt is recorded, as a failure, before anything is checked, and the lock is judged on every other
 * attempt recorded by then, finished or not. Of N attempts at once, the k-th to be recorded sees at least k - 1
 * others, so no more than the limit get their password checked however many arrive together.
 */
export async function signIn(ctx: AuthContext, emailInput: string, password: string, address: string): Promise<SignInResult> {
  const email = normalizeEmail(emailInput).slice(0, 254);
  const now = ctx.now();
  const attempt = { email, address, at: iso(now), succeeded: false };
  const inserted = await dialectSqlOf(ctx).insertRow(ctx.db, 'admin_login_attempts', attempt);
  const attempts = await ctx.db
    .selectFrom('admin_login_attempts')
    .select(['id', 'at', 'succeeded', 'address'])
    .where('email', '=', email)
    .where('at', '>', iso(now - Math.max(ctx.lockout.windowMs, ctx.lockout.lockMs) * 2))
    .orderBy('id')
    .execute();
  const history = attempts
    .filter((a) => a.id !== inserted)
    .map((a) => ({ at: Date.parse(a.at), succeeded: Boolean(a.succeeded), address: a.address }));
  const locked = (all: readonly (Attempt & { address: string | null })[]) =>
    lockedUntil(
      all.filter((a) => a.address === address),
      now,
      ctx.lockout,
    ) ?? lockedUntil(all, now, ctx.lockout, ctx.lockout.maxFailuresPerAccount);
  const until = locked(history);
  if (until !== undefined) {
    // Not a try: a locked answer checks nothing, so it neither counts nor prolongs the lock.
    await ctx.db.deleteFrom('admin_login_attempts').where('id', '=', inserted).execute();
    return { ok: false, reason: 'locked', until };
  }
  const row = await ctx.db
    .selectFrom('users')
    .select(['id', 'store_id', 'email', 'access', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
  // An unknown account still costs one scrypt, so timing does not tell which accounts exist.
  const good = await verifyPassword(password, row?.password_hash ?? UNKNOWN_ACCOUNT_HASH);
  const succeeded = good && row !== undefined;
  if (succeeded) await ctx.db.updateTable('admin_login_attempts').set({ succeeded: true }).where('id', '=', inserted).execute();
  // Attempts older than a day no longer count for anything; guesses at unknown names must not pile up.
  await ctx.db
    .deleteFrom('admin_login_attempts')
    .where('at', '<', iso(now - 24 * 3600_000))
    .execute();
  if (!succeeded) {
    const lockedNow = locked([...history, { at: now, succeeded: false, address }]);
    return lockedNow === undefined ? { ok: false, reason: 'bad-credentials' } : { ok: false, reason: 'locked', until: lockedNow };
  }
  return { ok: true, admin: { id: row.id, storeId: row.store_id, email: row.email, access: toAccess(row.access) } };
}
