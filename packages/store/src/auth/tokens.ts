// API tokens: non-expiring ones made in the console or CLI, and OAuth access/refresh pairs.
import type { CompiledQuery, InferResult, Kysely } from 'kysely';
import type { App } from './apps.ts';
import type { AuthContext } from './context.ts';
import { iso } from './iso-time.ts';
import type { Principal } from './principal.ts';
import type { TokenProblem } from './principal-cache.ts';
import type { AuthTables, TokenKind } from './schema.ts';
import { recordRevocation } from './revocations.ts';
import { formatScopes, normalizeScopes, parseScopes, type Scope } from './scopes.ts';
import { hashSecret, newSecret } from './token-secret.ts';

export class TokenInputError extends Error {
  override name = 'TokenInputError';
}

export interface TokenRecord {
  id: number;
  appId: number;
  kind: TokenKind;
  label: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface IssuedTokens {
  record: TokenRecord;
  accessToken: string;
  refreshToken: string | null;
}

async function insertToken(
  ctx: AuthContext,
  app: App,
  input: {
    kind: TokenKind;
    label: string;
    scopes: Scope[];
    adminUserId: number | null;
    expiresAt: string | null;
    withRefresh: boolean;
    familyId?: number;
  },
): Promise<IssuedTokens> {
  const accessToken = newSecret();
  const refreshToken = input.withRefresh ? newSecret() : null;
  const createdAt = iso(ctx.now());
  const tokenHash = hashSecret(accessToken);
  await ctx.db
    .insertInto('api_tokens')
    .values({
      store_id: app.storeId,
      app_id: app.id,
      kind: input.kind,
      label: input.label,
      token_hash: tokenHash,
      refresh_hash: refreshToken === null ? null : hashSecret(refreshToken),
      scopes: formatScopes(input.scopes),
      admin_user_id: input.adminUserId,
      created_at: createdAt,
      expires_at: input.expiresAt,
      refresh_expires_at: refreshToken === null ? null : iso(ctx.now() + ctx.lifetimes.refreshTokenMs),
      revoked_at: null,
      family_id: input.familyId ?? null,
    })
    .execute();
  const { id } = await ctx.db.selectFrom('api_tokens').select('id').where('token_hash', '=', tokenHash).executeTakeFirstOrThrow();
  const record: TokenRecord = {
    id,
    appId: app.id,
    kind: input.kind,
    label: input.label,
    scopes: input.scopes,
    createdAt,
    expiresAt: input.expiresAt,
    revokedAt: null,
  };
  return { record, accessToken, refreshToken };
}

/** A non-expiring token for a private integration. It can never read encrypted fields, so `decrypt` is refused. */
export async function createConsoleToken(
  ctx: AuthContext,
  app: App,
  input: { label?: string; scopes: string | readonly string[]; adminUserId?: number },
): Promise<IssuedTokens> {
  const scopes = parseScopes(input.scopes);
  if (scopes.includes('decrypt'))
    throw new TokenInputError('A non-expiring token cannot have the decrypt scope; use OAuth for encrypted data.');
  if (scopes.filter((s) => s !== 'no_expiry').length === 0) throw new TokenInputError('Choose at least one scope.');
  const label = (input.label ?? '').trim() || `Token ${iso(ctx.now()).slice(0, 16).replace('T', ' ')}`;
  if (label.length > 100) throw new TokenInputError('The token label must have at most 100 characters.');
  return insertToken(ctx, app, {
    kind: 'console',
    label,
    scopes: normalizeScopes([...scopes, 'no_expiry']),
    adminUserId: input.adminUserId ?? null,
    expiresAt: null,
    withRefresh: false,
  });
}

/**
 * The tokens an OAuth grant yields. With `no_expiry` the access token does not expire (and then cannot decrypt).
 * A refresh passes the family of the token it replaces.
 */
export function issueOAuthTokens(
  ctx: AuthContext,
  app: App,
  input: { scopes: Scope[]; adminUserId: number; familyId?: number },
): Promise<IssuedTokens> {
  const expiresAt = input.scopes.includes('no_expiry') ? null : iso(ctx.now() + ctx.lifetimes.accessTokenMs);
  return insertToken(ctx, app, {
    kind: 'oauth',
    label: `OAuth grant ${iso(ctx.now()).slice(0, 16).replace('T', ' ')}`,
    scopes: input.scopes,
    adminUserId: input.adminUserId,
    expiresAt,
    withRefresh: true,
    ...(input.familyId === undefined ? {} : { familyId: input.familyId }),
  });
}

/** Revokes every token of the OAuth grant `tokenId` belongs to: its first token and all its refreshes. */
export async function revokeFamily(ctx: AuthContext, tokenId: number): Promise<void> {
  const row = await ctx.db.selectFrom('api_tokens').select('family_id').where('id', '=', tokenId).executeTakeFirst();
  if (row === undefined) return;
  const family = row.family_id ?? tokenId;
  await ctx.db
    .updateTable('api_tokens')
    .set({ revoked_at: iso(ctx.now()) })
    .where((eb) => eb.or([eb('id', '=', family), eb('family_id', '=', family)]))
    .where('revoked_at', 'is', null)
    .execute();
  await recordRevocation(ctx);
}

export type { TokenProblem } from './principal-cache.ts';

function tokenLookupQuery(db: Kysely<AuthTables>, tokenHash: string) {
  return db
    .selectFrom('api_tokens')
    .innerJoin('api_apps', 'api_apps.id', 'api_tokens.app_id')
    .select([
      'api_tokens.id',
      'api_tokens.store_id',
      'api_apps.client_id',
      'api_apps.kind as app_kind',
      'api_tokens.scopes',
      'api_tokens.expires_at',
      'api_tokens.revoked_at',
    ])
    .where('api_tokens.token_hash', '=', tokenHash);
}

type TokenRow = InferResult<ReturnType<typeof tokenLookupQuery>>[number];

// Built and compiled once per database: every API call that misses the principal cache runs it.
const compiledLookups = new WeakMap<Kysely<AuthTables>, CompiledQuery<TokenRow>>();

function tokenLookup(db: Kysely<AuthTables>, tokenHash: string): CompiledQuery<TokenRow> {
  let compiled = compiledLookups.get(db);
  if (compiled === undefined) {
    compiled = tokenLookupQuery(db, '').compile();
    compiledLookups.set(db, compiled);
  }
  return { ...compiled, parameters: [tokenHash] };
}

export type TokenResolution = { principal: Principal } | { problem: TokenProblem };

/**
 * Resolves the X-AC-Auth-Token value into a principal, or says why not; at once when the principal (or the
 * refusal) is cached. `beforeLookup` runs only when the database must be asked, and may throw to refuse instead.
 */
export function resolveToken(ctx: AuthContext, token: string, beforeLookup?: () => void): TokenResolution | Promise<TokenResolution> {
  const tokenHash = hashSecret(token);
  const now = ctx.now();
  if (!ctx.principals.confirmed(now)) return ctx.principals.confirm(now).then(() => cachedOrLookedUp(ctx, tokenHash, now, beforeLookup));
  return cachedOrLookedUp(ctx, tokenHash, now, beforeLookup);
}

function cachedOrLookedUp(
  ctx: AuthContext,
  tokenHash: string,
  now: number,
  beforeLookup: (() => void) | undefined,
): TokenResolution | Promise<TokenResolution> {
  const cached = ctx.principals.get(tokenHash, now);
  if (cached !== undefined) return { principal: cached };
  const refused = ctx.principals.refused(tokenHash, now);
  if (refused !== undefined) return { problem: refused };
  beforeLookup?.();
  return lookUpToken(ctx, tokenHash);
}

async function lookUpToken(ctx: AuthContext, tokenHash: string): Promise<TokenResolution> {
  // A revocation recorded while this lookup runs must not leave its older answer cached.
  const generation = ctx.principals.generation;
  const row = (await ctx.db.executeQuery(tokenLookup(ctx.db, tokenHash))).rows[0];
  const problem =
    row === undefined
      ? 'unknown'
      : row.revoked_at !== null
        ? 'revoked'
        : row.expires_at !== null && row.expires_at <= iso(ctx.now())
          ? 'expired'
          : undefined;
  if (row === undefined || problem !== undefined) {
    if (generation === ctx.principals.generation) ctx.principals.refuse(tokenHash, problem ?? 'unknown', ctx.now());
    return { problem: problem ?? 'unknown' };
  }
  const principal: Principal = {
    kind: 'token',
    storeId: row.store_id,
    appId: row.client_id,
    appKind: row.app_kind,
    tokenId: row.id,
    scopes: parseScopes(row.scopes),
    expiresAt: row.expires_at,
  };
  ctx.principals.set(tokenHash, principal, ctx.now(), generation);
  return { principal };
}

/**
 * Swaps a refresh token for a new pair, optionally with fewer scopes. The old pair is revoked in
 * the same step, so a refresh token works once; the conditional update makes two racing refreshes
 * yield one winner. A refresh token used again (replayed, or raced) revokes its whole grant, since
 * either its owner or a thief holds a copy (RFC 6819 5.2.2.3). Asking for scopes beyond the grant
 * answers `wider` and spends nothing.
 */
export async function refreshTokens(
  ctx: AuthContext,
  app: App,
  refreshToken: string,
  narrowTo?: readonly Scope[],
): Promise<IssuedTokens | 'wider' | undefined> {
  const now = iso(ctx.now());
  const row = await ctx.db
    .selectFrom('api_tokens')
    .select(['id', 'scopes', 'admin_user_id', 'refresh_expires_at', 'revoked_at', 'family_id'])
    .where('refresh_hash', '=', hashSecret(refreshToken))
    .where('app_id', '=', app.id)
    .executeTakeFirst();
  if (row === undefined || row.refresh_expires_at === null || row.refresh_expires_at <= now) return undefined;
  if (row.revoked_at !== null) {
    await revokeFamily(ctx, row.id);
    return undefined;
  }
  const granted = parseScopes(row.scopes);
  if (narrowTo !== undefined && narrowTo.some((s) => !granted.includes(s))) return 'wider';
  const result = await ctx.db
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('id', '=', row.id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) {
    await revokeFamily(ctx, row.id);
    return undefined;
  }
  await recordRevocation(ctx);
  return issueOAuthTokens(ctx, app, {
    scopes: narrowTo === undefined ? granted : normalizeScopes(narrowTo),
    adminUserId: row.admin_user_id ?? 0,
    familyId: row.family_id ?? row.id,
  });
}

export async function revokeToken(ctx: AuthContext, storeId: number, tokenId: number): Promise<boolean> {
  const result = await ctx.db
    .updateTable('api_tokens')
    .set({ revoked_at: iso(ctx.now()) })
    .where('id', '=', tokenId)
    .where('store_id', '=', storeId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await recordRevocation(ctx);
  return true;
}

/** The app's tokens, newest first, revoked ones included so the console shows the history. */
export async function listTokens(ctx: AuthContext, app: App): Promise<TokenRecord[]> {
  const rows = await ctx.db
    .selectFrom('api_tokens')
    .select(['id', 'app_id', 'kind', 'label', 'scopes', 'created_at', 'expires_at', 'revoked_at'])
    .where('app_id', '=', app.id)
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    appId: r.app_id,
    kind: r.kind,
    label: r.label,
    scopes: parseScopes(r.scopes),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
  }));
}
