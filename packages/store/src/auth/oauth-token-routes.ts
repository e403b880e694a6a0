// Token endpoints: the platform's /api/oauth/access_token and /api/oauth/refresh (signed with
// SHA-256), and RFC 6749 /api/oauth/token (client secret, PKCE). Errors use RFC 6749 5.2 codes.
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateClient, findApp, secretOf, type App } from './apps.ts';
import type { AuthContext } from './context.ts';
import { findCode, redeemCode, type StoredCode } from './oauth-codes.ts';
import { verifierMatches } from './pkce.ts';
import { accessTokenSignature, refreshSignature, signatureMatches } from './platform-signature.ts';
import { redirectSpellings } from './redirect-spellings.ts';
import { formatScopes, parseScopes, ScopeError } from './scopes.ts';
import { refreshTokens, type IssuedTokens } from './tokens.ts';
import { isBusyDatabase } from '../db/busy-database.ts';
import { isUnavailableDatabase } from '../db/unavailable-database.ts';

export type OAuthErrorCode =
  'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope';

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: number;
  readonly challenge: boolean;
  constructor(code: OAuthErrorCode, description: string, options: { challenge?: boolean } = {}) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
    this.status = code === 'invalid_client' ? 401 : 400;
    this.challenge = options.challenge ?? false;
  }
}

type Body = Record<string, unknown>;

function field(body: Body, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

function required(body: Body, name: string): string {
  const value = field(body, name);
  if (value === undefined) throw new OAuthError('invalid_request', `The ${name} parameter is missing.`);
  return value;
}

function codeChecks(ctx: AuthContext, stored: StoredCode | undefined, app: App): asserts stored is StoredCode {
  if (stored === undefined || stored.appId !== app.id)
    throw new OAuthError('invalid_grant', 'The authorization code is not valid for this app.');
  if (stored.usedAt === null && stored.expiresAt <= new Date(ctx.now()).toISOString())
    throw new OAuthError('invalid_grant', 'The authorization code has expired.');
}

async function redeem(ctx: AuthContext, stored: StoredCode, app: App): Promise<IssuedTokens> {
  const result = await redeemCode(ctx, stored, app);
  if ('problem' in result) {
    throw new OAuthError(
      'invalid_grant',
      result.problem === 'reused'
        ? 'The authorization code was already used; tokens issued with it are revoked.'
        : 'The authorization code has expired.',
    );
  }
  return result;
}

/** The platform's reply: access_token, refresh_token and expires (ISO 8601; null when it never expires). */
function platformReply(issued: IssuedTokens) {
  return {
    access_token: issued.accessToken,
    refresh_token: issued.refreshToken,
    expires: issued.record.expiresAt,
    scope: formatScopes(issued.record.scopes),
  };
}

function rfcReply(ctx: AuthContext, issued: IssuedTokens) {
  const expiresAt = issued.record.expiresAt;
  return {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    ...(expiresAt === null ? {} : { expires_in: Math.max(0, Math.round((Date.parse(expiresAt) - ctx.now()) / 1000)) }),
    refresh_token: issued.refreshToken,
    scope: formatScopes(issued.record.scopes),
  };
}

/** RFC 6749 2.3.1: HTTP Basic (client_secret_basic) or client_id and client_secret in the body. */
async function clientOf(ctx: AuthContext, request: FastifyRequest, body: Body): Promise<App> {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  let clientId: string | undefined;
  let secret: string | undefined;
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'The Basic credentials are malformed.', { challenge: true });
    clientId = decodeURIComponent(decoded.slice(0, colon));
    secret = decodeURIComponent(decoded.slice(colon + 1));
  } else {
    clientId = field(body, 'client_id');
    secret = field(body, 'client_secret');
  }
  if (clientId === undefined || secret === undefined)
    throw new OAuthError('invalid_client', 'Authenticate the client with its App ID and App Secret.', { challenge: basic !== undefined });
  const app = await authenticateClient(ctx, clientId, secret);
  if (app === undefined)
    throw new OAuthError('invalid_client', 'The App ID or App Secret is not right.', { challenge: basic !== undefined });
  return app;
}

async function platformApp(ctx: AuthContext, body: Body): Promise<{ app: App; secret: string }> {
  // The platform's later samples call the App ID `app_id`.
  const clientId = field(body, 'app_id') ?? required(body, 'client_id');
  const app = await findApp(ctx, { clientId });
  const secret = app === undefined ? undefined : await secretOf(ctx, clientId);
  if (app === undefined || secret === undefined) throw new OAuthError('invalid_client', 'No app has this client_id.');
  return { app, secret };
}

export async function oauthTokenRoutes(app: FastifyInstance, { ctx }: { ctx: AuthContext }): Promise<void> {
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
    return payload;
  });

  app.setErrorHandler((error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof OAuthError) {
      if (error.challenge) void reply.header('www-authenticate', 'Basic realm="store"');
      return reply.code(error.status).send({ error: error.code, error_description: error.message });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return reply
        .code(400)
        .send({ error: 'invalid_request', error_description: 'The request body could not be read; send a form or JSON.' });
    if (isUnavailableDatabase(error) || isBusyDatabase(error)) {
      request.log.warn({ err: error }, 'oauth token request met the database unavailable');
      return reply
        .code(503)
        .header('retry-after', '2')
        .send({ error: 'temporarily_unavailable', error_description: 'The store cannot reach its database right now; retry in a moment.' });
    }
    request.log.error({ err: error }, 'oauth token request failed');
    return reply
      .code(500)
      .send({ error: 'server_error', error_description: 'The store failed to handle this request; it has been logged.' });
  });

  const bodyOf = (request: FastifyRequest): Body =>
    request.body !== null && typeof request.body === 'object' ? (request.body as Body) : {};

  app.post('/api/oauth/access_token', async (request) => {
    const body = bodyOf(request);
    const { app: client, secret } = await platformApp(ctx, body);
    const stored = await findCode(ctx, { authId: required(body, 'auth_id') });
    codeChecks(ctx, stored, client);
    const signature = required(body, 'signature');
    // Signed over the redirect URI as the client spells it (redirect-spellings.ts): any spelling of the registered one.
    const signed = redirectSpellings(stored.redirectUri).some((redirectUri) =>
      signatureMatches(
        accessTokenSignature({ secret, code: stored.code, clientId: client.clientId, scope: stored.scopeText, redirectUri }),
        signature,
      ),
    );
    if (!signed) throw new OAuthError('invalid_client', 'The signature does not match.');
    return platformReply(await redeem(ctx, stored, client));
  });

  app.post('/api/oauth/refresh', async (request) => {
    const body = bodyOf(request);
    const { app: client, secret } = await platformApp(ctx, body);
    const refreshToken = required(body, 'refresh_token');
    if (!signatureMatches(refreshSignature({ secret, refreshToken, clientId: client.clientId }), required(body, 'signature'))) {
      throw new OAuthError('invalid_client', 'The signature does not match.');
    }
    const issued = await refreshTokens(ctx, client, refreshToken);
    if (issued === undefined || issued === 'wider')
      throw new OAuthError('invalid_grant', 'The refresh token is not valid, has expired, or was already used.');
    return platformReply(issued);
  });

  app.post('/api/oauth/token', async (request) => {
    const body = bodyOf(request);
    const grantType = required(body, 'grant_type');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
      throw new OAuthError('unsupported_grant_type', `The grant type ${grantType} is not supported.`);
    const client = await clientOf(ctx, request, body);
    if (grantType === 'refresh_token') {
      let narrowed;
      try {
        narrowed = field(body, 'scope') === undefined ? undefined : parseScopes(field(body, 'scope') ?? '');
      } catch (error) {
        if (error instanceof ScopeError) throw new OAuthError('invalid_scope', error.message);
        throw error;
      }
      const issued = await refreshTokens(ctx, client, required(body, 'refresh_token'), narrowed);
      if (issued === undefined) throw new OAuthError('invalid_grant', 'The refresh token is not valid, has expired, or was already used.');
      if (issued === 'wider') throw new OAuthError('invalid_scope', 'A refresh may only narrow the scopes first granted.');
      return rfcReply(ctx, issued);
    }
    const stored = await findCode(ctx, { code: required(body, 'code') });
    codeChecks(ctx, stored, client);
    // Codes only ever go to the app's registered URI, so leaving it out here cannot be abused (RFC 6749 4.1.3).
    const redirectUri = field(body, 'redirect_uri');
    if (redirectUri !== undefined && redirectUri !== stored.redirectUri)
      throw new OAuthError('invalid_grant', 'The redirect_uri does not match the authorization request.');
    if (stored.challenge !== undefined && !verifierMatches(field(body, 'code_verifier'), stored.challenge.value, stored.challenge.method)) {
      throw new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
    }
    return rfcReply(ctx, await redeem(ctx, stored, client));
  });
}
