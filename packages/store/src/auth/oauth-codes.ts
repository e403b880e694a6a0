// Authorization codes: single use, short lived, bound to the app, the redirect URI and (optionally) a PKCE challenge.
import { randomBytes } from 'node:crypto';
import type { App } from './apps.ts';
import type { AuthContext } from './context.ts';
import { iso } from './iso-time.ts';
import { deriveSecret, newNonce } from './derived-secret.ts';
import type { ChallengeMethod } from './pkce.ts';
import { formatScopes, parseScopes, type Scope } from './scopes.ts';
import { hashSecret } from './token-secret.ts';
import { issueOAuthTokens, revokeFamily, type IssuedTokens } from './tokens.ts';

export interface CodeGrant {
  app: App;
  adminUserId: number;
  scopeText: string;
  scopes: Scope[];
  redirectUri: string;
  challenge?: { value: string; method: ChallengeMethod } | undefined;
}

export interface StoredCode {
  id: number;
  authId: string;
  appId: number;
  adminUserId: number;
  code: string;
  scopeText: string;
  scopes: Scope[];
  redirectUri: string;
  challenge: { value: string; method: ChallengeMethod } | undefined;
  expiresAt: string;
  usedAt: string | null;
  tokenId: number | null;
}

function codeOf(ctx: AuthContext, authId: string, nonce: string): string {
  return deriveSecret(ctx.key, 'oauth-code', authId, nonce);
}

export async function issueCode(ctx: AuthContext, grant: CodeGrant): Promise<{ authId: string; code: string }> {
  const authId = randomBytes(12).toString('hex');
  const nonce = newNonce();
  const code = codeOf(ctx, authId, nonce);
  await ctx.db
    .insertInto('oauth_codes')
    .values({
      store_id: grant.app.storeId,
      auth_id: authId,
      app_id: grant.app.id,
      admin_user_id: grant.adminUserId,
      code_nonce: nonce,
      code_hash: hashSecret(code),
      scope_text: grant.scopeText,
      scopes: formatScopes(grant.scopes),
      redirect_uri: grant.redirectUri,
      code_challenge: grant.challenge?.value ?? null,
      code_challenge_method: grant.challenge?.method ?? null,
      created_at: iso(ctx.now()),
      expires_at: iso(ctx.now() + ctx.lifetimes.authorizationCodeMs),
      used_at: null,
      token_id: null,
    })
    .execute();
  // A day after expiry a code is worth nothing, not even for spotting its reuse.
  await ctx.db
    .deleteFrom('oauth_codes')
    .where('expires_at', '<', iso(ctx.now() - 24 * 3600_000))
    .execute();
  return { authId, code };
}

/** Finds a code by the platform's auth_id or by the code itself (RFC 6749). */
export async function findCode(ctx: AuthContext, by: { authId: string } | { code: string }): Promise<StoredCode | undefined> {
  const query = ctx.db.selectFrom('oauth_codes').selectAll();
  const row = await (
    'authId' in by ? query.where('auth_id', '=', by.authId) : query.where('code_hash', '=', hashSecret(by.code))
  ).executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    id: row.id,
    authId: row.auth_id,
    appId: row.app_id,
    adminUserId: row.admin_user_id,
    code: codeOf(ctx, row.auth_id, row.code_nonce),
    scopeText: row.scope_text,
    scopes: parseScopes(row.scopes),
    redirectUri: row.redirect_uri,
    challenge:
      row.code_challenge === null
        ? undefined
        : { value: row.code_challenge, method: row.code_challenge_method === 'S256' ? 'S256' : 'plain' },
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    tokenId: row.token_id,
  };
}

export type RedeemProblem = 'expired' | 'reused';

/**
 * Spends a code the caller has already checked (client, signature or PKCE) and issues tokens.
 * A second use fails and revokes what the first use issued, and every refresh of it (RFC 6749 4.1.2).
 */
export async function redeemCode(ctx: AuthContext, stored: StoredCode, app: App): Promise<IssuedTokens | { problem: RedeemProblem }> {
  const now = iso(ctx.now());
  const claim = await ctx.db
    .updateTable('oauth_codes')
    .set({ used_at: now })
    .where('id', '=', stored.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(claim.numUpdatedRows) !== 1) {
    const again = await findCode(ctx, { authId: stored.authId });
    if (again?.tokenId != null) await revokeFamily(ctx, again.tokenId);
    return { problem: 'reused' };
  }
  if (stored.expiresAt <= now) return { problem: 'expired' };
  const issued = await issueOAuthTokens(ctx, app, { scopes: stored.scopes, adminUserId: stored.adminUserId });
  await ctx.db.updateTable('oauth_codes').set({ token_id: issued.record.id }).where('id', '=', stored.id).execute();
  return issued;
}
