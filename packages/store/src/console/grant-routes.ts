// The OAuth authorization step, /api/oauth: the admin signs in, sees what the app asks for, and
// grants or denies. Serves the platform's flow and RFC 6749 (with RFC 7636 PKCE) alike.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allGroups, type Admin } from '../auth/admins.ts';
import { findApp, type App } from '../auth/apps.ts';
import { issueCode } from '../auth/oauth-codes.ts';
import { isPkceText, parseChallengeMethod, type ChallengeMethod } from '../auth/pkce.ts';
import { sameRedirect } from '../auth/redirect-spellings.ts';
import { parseScopes, ScopeError, scopeGroups, type ResourceGroup, type Scope } from '../auth/scopes.ts';
import { requireAdmin, sendPage, sessionCsrf, type ConsoleOptions } from './console-request.ts';
import { html } from './html.ts';
import { page } from './layout.ts';
import { describeScopes } from './scope-areas.ts';

type Params = Record<string, string | string[] | undefined>;

interface AuthorizeRequest {
  app: App;
  redirectUri: string;
  scopeText: string;
  scopes: Scope[];
  state: string | undefined;
  challenge: { value: string; method: ChallengeMethod } | undefined;
}

type Checked =
  | { ok: true; request: AuthorizeRequest }
  /** Without a trustworthy redirect URI the error is shown here, never sent to an unchecked address. */
  | { ok: false; page: string }
  | { ok: false; redirect: string };

// `app_id` and `redirect_url`: the names the platform's later samples use for client_id and redirect_uri.
const PARAMS = [
  'client_id',
  'app_id',
  'redirect_uri',
  'redirect_url',
  'scope',
  'state',
  'response_type',
  'code_challenge',
  'code_challenge_method',
] as const;

function one(params: Params, name: string): string | undefined {
  const value = params[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

function errorRedirect(redirectUri: string, error: string, reason: string, description: string, state: string | undefined): string {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_reason', reason);
  url.searchParams.set('error_description', description);
  if (state !== undefined) url.searchParams.set('state', state);
  return url.toString();
}

async function check(options: ConsoleOptions, params: Params): Promise<Checked> {
  // The platform's later samples send `app_id` and `redirect_url` for these two.
  const clientId = one(params, 'client_id') ?? one(params, 'app_id');
  const app = clientId === undefined ? undefined : await findApp(options.ctx, { clientId });
  if (app === undefined) return { ok: false, page: 'The app asking for access is not registered with this store (unknown client_id).' };
  const given = one(params, 'redirect_uri') ?? one(params, 'redirect_url');
  if (app.redirectUri === null) return { ok: false, page: `${app.name} has no redirect URI registered, so it cannot use OAuth.` };
  if (given !== undefined && !sameRedirect(app.redirectUri, given))
    return { ok: false, page: `The redirect_uri does not match the one registered for ${app.name}.` };
  const redirectUri = app.redirectUri;
  const state = one(params, 'state');
  const fail = (error: string, reason: string, description: string): Checked => ({
    ok: false,
    redirect: errorRedirect(redirectUri, error, reason, description, state),
  });
  const responseType = one(params, 'response_type');
  if (responseType !== undefined && responseType !== 'code')
    return fail('unsupported_response_type', 'unsupported_response_type', 'Only response_type=code is supported.');
  if (state !== undefined && state.length > 500)
    return fail('invalid_request', 'invalid_state', 'The state parameter is longer than 500 characters.');
  const scopeText = one(params, 'scope') ?? '';
  let scopes: Scope[];
  try {
    scopes = parseScopes(scopeText);
  } catch (error) {
    if (error instanceof ScopeError) return fail('invalid_scope', 'invalid_scope', error.message);
    throw error;
  }
  if (scopes.length === 0) return fail('invalid_scope', 'invalid_scope', 'Ask for at least one scope.');
  const challengeText = one(params, 'code_challenge');
  const method = parseChallengeMethod(one(params, 'code_challenge_method'));
  if (challengeText === undefined && one(params, 'code_challenge_method') !== undefined)
    return fail('invalid_request', 'invalid_request', 'code_challenge_method was sent without a code_challenge.');
  if (challengeText !== undefined && (!isPkceText(challengeText) || method === undefined)) {
    return fail(
      'invalid_request',
      'invalid_request',
      'The code_challenge must be 43 to 128 characters and code_challenge_method S256 or plain.',
    );
  }
  const challenge = challengeText === undefined || method === undefined ? undefined : { value: challengeText, method };
  return { ok: true, request: { app, redirectUri, scopeText, scopes, state, challenge } };
}

/** Scopes the admin cannot grant, because their own access does not reach that far. */
function beyondAccess(admin: Admin, scopes: readonly Scope[]): Scope[] {
  const groupOf = (scope: Scope): ResourceGroup[] => {
    if (scope === 'system') return [...allGroups];
    if (scope === 'settings') return ['settings'];
    const group = scope.replace(/^read_/, '');
    return (scopeGroups as readonly string[]).includes(group) ? [group as ResourceGroup] : [];
  };
  return scopes.filter((s) => groupOf(s).some((g) => !admin.access.includes(g)));
}

function grantPage(request: AuthorizeRequest, params: Params, csrf: string, email: string): string {
  const { app } = request;
  const asked = describeScopes(request.scopes);
  return page({
    title: `Grant access to ${app.name}`,
    narrow: true,
    body: html`<h1>Grant access to ${app.name}?</h1>
<form class="card" method="post" action="/api/oauth">
  <p><strong>${app.name}</strong> <span class="badge">${app.kind === 'installed' ? 'Installed app' : 'Custom app'}</span> asks to act for you in this store. It will be able to:</p>
  <ul id="requested-scopes" class="grants">${asked.map((d) =>
    d.level === undefined
      ? html`<li><strong>${d.name}</strong></li>`
      : html`<li><strong>${d.level === 'read' ? 'See' : 'See and change'}</strong> ${d.name.toLowerCase()} <span class="muted">(${d.detail})</span></li>`,
  )}</ul>
  <p class="hint">It asked for <code>${request.scopes.join(' ')}</code>. Anything else stays out of its reach.${request.scopes.includes('no_expiry') ? '' : ' Its access lasts an hour at a time and is renewed for up to 30 days unless you revoke it.'}</p>
  <p class="hint">You are signed in as ${email}. You will be sent back to <code>${new URL(request.redirectUri).origin}</code>.</p>
  <input type="hidden" name="_csrf" value="${csrf}">
  ${PARAMS.map((name) => (one(params, name) === undefined ? '' : html`<input type="hidden" name="${name}" value="${one(params, name)}">`))}
  <div class="actions"><button type="submit" name="decision" value="allow">Allow ${app.name}</button><button class="secondary" type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  });
}

function problemPage(text: string): string {
  return page({
    title: 'Cannot grant access',
    narrow: true,
    body: html`<h1>Cannot grant access</h1><div class="error" role="alert"><p>${text}</p></div>`,
  });
}

export function grantRoutes(app: FastifyInstance, options: ConsoleOptions): void {
  const answer = (reply: FastifyReply, checked: Exclude<Checked, { ok: true }>) =>
    'page' in checked ? sendPage(reply, 400, problemPage(checked.page)) : reply.redirect(checked.redirect, 303);

  const show = async (request: FastifyRequest<{ Querystring: Params }>, reply: FastifyReply) => {
    const checked = await check(options, request.query);
    if (!checked.ok) return answer(reply, checked);
    const session = requireAdmin(request, reply, 'signed-in');
    if (session === undefined) return reply;
    return sendPage(reply, 200, grantPage(checked.request, request.query, sessionCsrf(options.ctx, request), session.admin.email));
  };
  app.get('/api/oauth', show);
  app.get('/api/oauth/authorize', show);

  app.post<{ Body: Params }>('/api/oauth', async (request, reply) => {
    const session = requireAdmin(request, reply, 'signed-in');
    if (session === undefined) return reply;
    const checked = await check(options, request.body);
    if (!checked.ok) return answer(reply, checked);
    const grant = checked.request;
    if (one(request.body, 'decision') !== 'allow') {
      return reply.redirect(
        errorRedirect(grant.redirectUri, 'access_denied', 'user_denied', 'The admin denied the request.', grant.state),
        303,
      );
    }
    const beyond = beyondAccess(session.admin, grant.scopes);
    if (beyond.length > 0) {
      return reply.redirect(
        errorRedirect(
          grant.redirectUri,
          'access_denied',
          'insufficient_access',
          `The admin's account cannot grant ${beyond.join(', ')}.`,
          grant.state,
        ),
        303,
      );
    }
    const { authId, code } = await issueCode(options.ctx, {
      app: grant.app,
      adminUserId: session.admin.id,
      scopeText: grant.scopeText,
      scopes: grant.scopes,
      redirectUri: grant.redirectUri,
      challenge: grant.challenge,
    });
    const target = new URL(grant.redirectUri);
    target.searchParams.set('auth_id', authId);
    target.searchParams.set('code', code);
    if (grant.state !== undefined) target.searchParams.set('state', grant.state);
    return reply.redirect(target.toString(), 303);
  });
}
