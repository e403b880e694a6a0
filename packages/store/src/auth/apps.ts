// API apps: registered in the console, identified by an App ID, proven by an App Secret.
import { randomBytes } from 'node:crypto';
import type { AuthContext } from './context.ts';
import { iso } from './iso-time.ts';
import { deriveSecret, newNonce } from './derived-secret.ts';
import { recordRevocation } from './revocations.ts';
import { hashSecret, sameText } from './token-secret.ts';
import type { AppKind } from './schema.ts';

export interface App {
  id: number;
  storeId: number;
  name: string;
  clientId: string;
  kind: AppKind;
  redirectUri: string | null;
  createdAt: string;
}

export interface NewApp {
  app: App;
  /** Shown once, on the page after Save. */
  secret: string;
}

export class AppInputError extends Error {
  override name = 'AppInputError';
}

export function appSecret(ctx: AuthContext, clientId: string, nonce: string): string {
  return deriveSecret(ctx.key, 'app-secret', clientId, nonce);
}

/** A redirect URI must be absolute https (or http on loopback, for development and tests). */
function redirectUriProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'The redirect URI must be an absolute URL.';
  }
  if (url.hash !== '') return 'The redirect URI must not have a fragment.';
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return 'The redirect URI must use https (http only on localhost).';
  return undefined;
}

/** The name and redirect URI as stored, or why they cannot be. */
async function checkedInput(
  ctx: AuthContext,
  storeId: number,
  input: { name: string; redirectUri?: string | undefined },
  exceptId?: number,
): Promise<{ name: string; redirectUri: string | null }> {
  const name = input.name.trim();
  if (name === '' || name.length > 100) throw new AppInputError('The app name must have 1 to 100 characters.');
  const redirectUri = input.redirectUri?.trim() || null;
  const problem = redirectUri === null ? undefined : redirectUriProblem(redirectUri);
  if (problem !== undefined) throw new AppInputError(problem);
  if (redirectUri !== null && redirectUri.length > 2000) throw new AppInputError('The redirect URI must have at most 2000 characters.');
  let existing = ctx.db.selectFrom('api_apps').select('id').where('store_id', '=', storeId).where('name', '=', name);
  if (exceptId !== undefined) existing = existing.where('id', '!=', exceptId);
  if ((await existing.executeTakeFirst()) !== undefined) throw new AppInputError(`An app named "${name}" already exists.`);
  return { name, redirectUri };
}

export async function createApp(
  ctx: AuthContext,
  storeId: number,
  input: { name: string; kind: AppKind; redirectUri?: string | undefined },
): Promise<NewApp> {
  const { name, redirectUri } = await checkedInput(ctx, storeId, input);
  const nonce = newNonce();
  const createdAt = iso(ctx.now());
  // The App ID is the app's number, as on the platform, whose clients format it as an integer (`app_id=%d`).
  // The row's id is known only after the insert, so it goes in under a placeholder, in one transaction.
  const placeholder = `new-${randomBytes(12).toString('hex')}`;
  const { clientId, secret, id } = await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('api_apps')
      .values({
        store_id: storeId,
        name,
        client_id: placeholder,
        secret_nonce: nonce,
        secret_hash: '',
        kind: input.kind,
        redirect_uri: redirectUri,
        created_at: createdAt,
      })
      .execute();
    // Read back by the unique placeholder: MariaDB has no INSERT ... RETURNING.
    const row = await trx.selectFrom('api_apps').select('id').where('client_id', '=', placeholder).executeTakeFirstOrThrow();
    const clientId = String(row.id);
    const secret = appSecret(ctx, clientId, nonce);
    await trx
      .updateTable('api_apps')
      .set({ client_id: clientId, secret_hash: hashSecret(secret) })
      .where('id', '=', row.id)
      .execute();
    return { clientId, secret, id: row.id };
  });
  return { app: { id, storeId, name, clientId, kind: input.kind, redirectUri, createdAt }, secret };
}

/**
 * Renames an app, changes its kind or its redirect URI. The kind sets which rate limit its tokens count
 * against, and cached principals carry it, so a change of kind is published like a revocation.
 */
export async function updateApp(
  ctx: AuthContext,
  app: App,
  input: { name: string; kind: AppKind; redirectUri?: string | undefined },
): Promise<App> {
  const { name, redirectUri } = await checkedInput(ctx, app.storeId, input, app.id);
  await ctx.db
    .updateTable('api_apps')
    .set({ name, kind: input.kind, redirect_uri: redirectUri })
    .where('id', '=', app.id)
    .where('store_id', '=', app.storeId)
    .execute();
  if (input.kind !== app.kind) await recordRevocation(ctx);
  return { ...app, name, kind: input.kind, redirectUri };
}

/**
 * A new App Secret, returned once: from now on only it signs OAuth exchanges and webhook deliveries, and the
 * old one authenticates nothing. Tokens already issued keep working; revoke them separately if the secret leaked.
 */
export async function rotateSecret(ctx: AuthContext, app: App): Promise<string> {
  const nonce = newNonce();
  const secret = appSecret(ctx, app.clientId, nonce);
  await ctx.db
    .updateTable('api_apps')
    .set({ secret_nonce: nonce, secret_hash: hashSecret(secret) })
    .where('id', '=', app.id)
    .where('store_id', '=', app.storeId)
    .execute();
  return secret;
}

/** Deletes an app with its tokens and pending OAuth codes; its tokens stop working on every instance. */
export async function deleteApp(ctx: AuthContext, app: App): Promise<void> {
  // Explicitly rather than by ON DELETE CASCADE alone, so it holds whatever the database enforces.
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('oauth_codes').where('app_id', '=', app.id).execute();
    await trx.deleteFrom('api_tokens').where('app_id', '=', app.id).execute();
    await trx.deleteFrom('api_apps').where('id', '=', app.id).where('store_id', '=', app.storeId).execute();
  });
  await recordRevocation(ctx);
}

type AppRow = {
  id: number;
  store_id: number;
  name: string;
  client_id: string;
  kind: AppKind;
  redirect_uri: string | null;
  created_at: string;
};

function toApp(row: AppRow): App {
  return {
    id: row.id,
    storeId: row.store_id,
    name: row.name,
    clientId: row.client_id,
    kind: row.kind,
    redirectUri: row.redirect_uri,
    createdAt: row.created_at,
  };
}

const appColumns = ['id', 'store_id', 'name', 'client_id', 'kind', 'redirect_uri', 'created_at'] as const;

export async function listApps(ctx: AuthContext, storeId: number): Promise<App[]> {
  const rows = await ctx.db.selectFrom('api_apps').select(appColumns).where('store_id', '=', storeId).orderBy('name').execute();
  return rows.map(toApp);
}

export async function findApp(
  ctx: AuthContext,
  by: { id: number; storeId: number } | { clientId: string } | { name: string; storeId: number },
): Promise<App | undefined> {
  let query = ctx.db.selectFrom('api_apps').select(appColumns);
  if ('clientId' in by) query = query.where('client_id', '=', by.clientId);
  else if ('id' in by) query = query.where('id', '=', by.id).where('store_id', '=', by.storeId);
  else query = query.where('name', '=', by.name).where('store_id', '=', by.storeId);
  const row = await query.executeTakeFirst();
  return row === undefined ? undefined : toApp(row);
}

/** The app's current secret, for checking the platform's signatures. */
export async function secretOf(ctx: AuthContext, clientId: string): Promise<string | undefined> {
  const row = await ctx.db.selectFrom('api_apps').select(['secret_nonce']).where('client_id', '=', clientId).executeTakeFirst();
  return row === undefined ? undefined : appSecret(ctx, clientId, row.secret_nonce);
}

/** Client authentication with the App Secret itself (RFC 6749 2.3.1). */
export async function authenticateClient(ctx: AuthContext, clientId: string, secret: string): Promise<App | undefined> {
  const row = await ctx.db
    .selectFrom('api_apps')
    .select([...appColumns, 'secret_hash'])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (row === undefined || !sameText(row.secret_hash, hashSecret(secret))) return undefined;
  return toApp(row);
}
