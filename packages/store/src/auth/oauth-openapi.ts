// The OAuth endpoints as OpenAPI path items, for the API's document. They live under /api/oauth, beside /api/v1,
// so each path item carries its own server. The routes are in oauth-token-routes.ts and console/grant-routes.ts.
import { lifetimes } from './lifetimes.ts';
import { allScopes } from './scopes.ts';

const servers = [{ url: '/api', description: 'OAuth lives beside /api/v1' }];
const tags = ['oauth'];
// No API token: the page signs an admin in, and the token requests carry the app's own credentials.
const security: [] = [];
const text = { type: 'string' };
const minutes = (ms: number) => `${ms / 60_000} minutes`;
const days = (ms: number) => `${ms / 86_400_000} days`;

const scopeList = `Scopes, separated by commas or spaces: ${allScopes.join(', ')}.`;

const oauthError = {
  description: 'RFC 6749 section 5.2 error: invalid_request, invalid_client (401), invalid_grant, unsupported_grant_type or invalid_scope',
  content: {
    'application/json': { schema: { type: 'object', properties: { error: text, error_description: text }, required: ['error'] } },
  },
};

const platformTokens = {
  description: 'The tokens',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          access_token: text,
          refresh_token: text,
          expires: { type: ['string', 'null'], format: 'date-time', description: 'When the access token expires (ISO 8601)' },
          scope: text,
        },
      },
    },
  },
};

const rfcTokens = {
  description: 'The tokens (RFC 6749 section 5.1)',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          access_token: text,
          token_type: { const: 'Bearer' },
          expires_in: { type: 'integer', description: 'Seconds' },
          refresh_token: text,
          scope: text,
        },
      },
    },
  },
};

/** A request body taken as JSON or as a form, with the same fields. */
function body(properties: Record<string, unknown>, required: string[]) {
  const schema = { type: 'object', properties, required };
  return { required: true, content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } } };
}

/** The platform's two signed endpoints: text fields, all required, answered with its token reply. */
function platformTokenEndpoint(summary: string, description: string, fields: string[]) {
  const requestBody = body(Object.fromEntries(fields.map((field) => [field, text])), fields);
  return {
    servers,
    post: { tags, security, summary, description, requestBody, responses: { 200: platformTokens, 400: oauthError, 401: oauthError } },
  };
}

const query = (name: string, description: string, required = false) => ({ name, in: 'query', required, description, schema: text });

export function oauthPaths(): Record<string, unknown> {
  return {
    '/oauth': {
      servers,
      get: {
        tags,
        security,
        summary: 'Authorization: an admin of the store signs in and grants the app the scopes it asks for',
        description:
          `Open this address in the admin's browser (it is a console page, not a JSON endpoint). After the grant, the browser goes to \`redirect_uri?auth_id=...&code=...\` (plus \`state\`); ` +
          `a refusal or a bad request goes there with \`error\` and \`error_description\`. The code lives ${minutes(lifetimes.authorizationCodeMs)} and works once. ` +
          "The platform's flow redeems it at `/api/oauth/access_token`; RFC 6749 clients (with `response_type=code`, and PKCE with S256) at `/api/oauth/token`. " +
          '`/api/oauth/authorize` is the same page.',
        parameters: [
          query('client_id', 'The App ID shown in the console (`app_id` is accepted too)', true),
          query('scope', scopeList, true),
          query('redirect_uri', 'Must equal the redirect URI registered for the app (`redirect_url` is accepted too)'),
          query('state', 'Sent back unchanged'),
          query('response_type', '`code` for RFC 6749 clients'),
          query('code_challenge', 'RFC 7636 PKCE challenge'),
          { ...query('code_challenge_method', 'PKCE method'), schema: { enum: ['S256', 'plain'] } },
        ],
        responses: {
          200: { description: 'The sign-in or consent page (HTML)' },
          302: { description: 'To the redirect URI with a code, or with an error' },
          400: {
            description:
              'No client_id or scope, or an app or redirect URI the store does not know: a page saying so (HTML), as there is no redirect URI to trust',
          },
        },
      },
    },
    '/oauth/access_token': platformTokenEndpoint(
      "The platform's token request: trade an auth_id for tokens",
      `\`signature\` is the lower-case hex SHA-256 of App Secret + code + client_id + scope + the redirect URI in lower case. The access token lives ${minutes(lifetimes.accessTokenMs)}; the refresh token ${days(lifetimes.refreshTokenMs)} and works once. A code used twice revokes every token it gave.`,
      ['client_id', 'auth_id', 'signature'],
    ),
    '/oauth/refresh': platformTokenEndpoint(
      "The platform's refresh: a new access token (and refresh token) for a refresh token",
      '`signature` is the lower-case hex SHA-256 of App Secret + refresh_token + client_id. A refresh token used twice revokes every token of its grant.',
      ['client_id', 'refresh_token', 'signature'],
    ),
    '/oauth/token': {
      servers,
      post: {
        tags,
        security,
        summary: 'RFC 6749 token endpoint: authorization_code (with PKCE) or refresh_token',
        description:
          'The client authenticates with HTTP Basic (App ID and App Secret) or with `client_id` and `client_secret` in the body. A refresh may narrow the scopes with `scope`, never widen them.',
        requestBody: body(
          {
            grant_type: { enum: ['authorization_code', 'refresh_token'] },
            code: text,
            redirect_uri: text,
            code_verifier: text,
            refresh_token: text,
            scope: text,
            client_id: text,
            client_secret: text,
          },
          ['grant_type'],
        ),
        responses: { 200: rfcTokens, 400: oauthError, 401: oauthError },
      },
    },
  };
}
