// Tools > Apps & Addons > API Apps & Integrations: apps, their App ID and Secret, and their tokens.
import type { FastifyInstance } from 'fastify';
import { AppInputError, createApp, findApp, listApps, type App } from '../auth/apps.ts';
import type { AppKind } from '../auth/schema.ts';
import { allScopes, ScopeError, type Scope } from '../auth/scopes.ts';
import { createConsoleToken, listTokens, revokeToken, TokenInputError, type TokenRecord } from '../auth/tokens.ts';
import { iso } from '../auth/context.ts';
import { formField, formList, requireAdmin, sendPage, sessionCsrf, type ConsoleOptions } from './console-request.ts';
import { html, type Markup } from './html.ts';
import { crumbs, errorBox, page } from './layout.ts';
import { scopeLabel } from './scope-labels.ts';

const TRAIL = ['Tools', 'Apps & Addons', 'API Apps & Integrations'];
const kindText: Record<AppKind, string> = { custom: 'Custom app', installed: 'Installed app' };
/** Scopes a console token may carry: no_expiry is implied, and decrypt is never allowed. */
const tokenScopes = allScopes.filter((s) => s !== 'no_expiry' && s !== 'decrypt');

function listPage(apps: App[]): Markup {
  return html`${crumbs(...TRAIL)}<h1>API Apps &amp; Integrations</h1>
<div class="actions toolbar"><a class="button" href="/admin/apps/new">New</a></div>
${apps.length === 0
  ? html`<div class="card"><p>No apps yet. Choose <strong>New</strong> to register one; saving it shows its App ID and App Secret.</p></div>`
  : html`<table><caption class="skip">Registered apps</caption>
<thead><tr><th scope="col">Name</th><th scope="col">App ID</th><th scope="col">Kind</th><th scope="col">Created</th></tr></thead>
<tbody>${apps.map((a) => html`<tr><td><a href="/admin/apps/${a.id}">${a.name}</a></td><td><code>${a.clientId}</code></td><td>${kindText[a.kind]}</td><td>${a.createdAt.slice(0, 10)}</td></tr>`)}</tbody></table>`}`;
}

function newAppForm(csrf: string, values: { name: string; kind: string; redirectUri: string }, errors: string[]): Markup {
  const kind = values.kind === 'installed' ? 'installed' : 'custom';
  return html`${crumbs(...TRAIL, 'New')}<h1>New API app</h1>${errorBox(errors)}
<form class="card" method="post" action="/admin/apps">
  <input type="hidden" name="_csrf" value="${csrf}">
  <div class="field"><label for="name">App name</label>
    <input id="name" name="name" type="text" maxlength="100" required value="${values.name}"></div>
  <fieldset><legend>Kind</legend>
    <label class="choice"><input type="radio" name="kind" value="custom" ${kind === 'custom' ? 'checked' : ''}> <span>Custom app <span class="muted">— made for this store only; its rate limit follows the store plan</span></span></label>
    <label class="choice"><input type="radio" name="kind" value="installed" ${kind === 'installed' ? 'checked' : ''}> <span>Installed app <span class="muted">— from the app store or an integration; installed apps share 50 calls per 10 seconds</span></span></label>
  </fieldset>
  <div class="field"><label for="redirect_uri">OAuth redirect URI</label>
    <p class="hint" id="redirect_hint">Where the store sends admins back after they grant access. Leave empty if the app only uses tokens made here.</p>
    <input id="redirect_uri" name="redirect_uri" type="url" aria-describedby="redirect_hint" value="${values.redirectUri}"></div>
  <div class="actions"><button type="submit">Save</button><a class="button secondary" href="/admin/apps">Cancel</a></div>
</form>`;
}

function savedPage(app: App, secret: string): Markup {
  return html`${crumbs(...TRAIL, app.name)}<h1>App saved</h1>
<div class="notice" role="status">Copy the App Secret now. It is shown only this once.</div>
<div class="card"><dl class="facts">
  <dt>App name</dt><dd>${app.name}</dd>
  <dt>App ID</dt><dd><code class="secret" id="app-id">${app.clientId}</code></dd>
  <dt>App Secret</dt><dd><code class="secret" id="app-secret">${secret}</code></dd>
</dl>
<div class="actions"><a class="button" href="/admin/apps/${app.id}">Continue to the app</a></div></div>`;
}

function statusOf(token: TokenRecord, now: string): Markup {
  if (token.revokedAt !== null) return html`<span class="badge revoked">Revoked</span>`;
  if (token.expiresAt !== null && token.expiresAt <= now) return html`<span class="badge expired">Expired</span>`;
  return html`<span class="badge active">Active</span>`;
}

function appPage(input: { app: App; tokens: TokenRecord[]; csrf: string; now: string; errors: string[]; chosen: string[] }): Markup {
  const { app, csrf } = input;
  return html`${crumbs(...TRAIL, app.name)}<h1>${app.name}</h1>
<div class="card"><dl class="facts">
  <dt>App ID</dt><dd><code>${app.clientId}</code></dd>
  <dt>Kind</dt><dd>${kindText[app.kind]}</dd>
  <dt>Redirect URI</dt><dd>${app.redirectUri === null ? html`<span class="muted">none (tokens only)</span>` : html`<code>${app.redirectUri}</code>`}</dd>
  <dt>Created</dt><dd>${app.createdAt.slice(0, 16).replace('T', ' ')} UTC</dd>
</dl></div>
<h2 id="tokens">Tokens</h2>
${input.tokens.length === 0
  ? html`<p class="muted">This app has no tokens yet.</p>`
  : html`<table aria-labelledby="tokens"><thead><tr><th scope="col">Label</th><th scope="col">Kind</th><th scope="col">Scopes</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="skip">Action</span></th></tr></thead>
<tbody>${input.tokens.map((t) => html`<tr><td>${t.label}</td><td>${t.kind === 'console' ? 'Non-expiring' : 'OAuth'}</td><td>${t.scopes.map((s) => html`<code>${s}</code> `)}</td>
<td>${t.expiresAt === null ? 'never' : `${t.expiresAt.slice(0, 16).replace('T', ' ')} UTC`}</td><td>${statusOf(t, input.now)}</td>
<td>${t.revokedAt === null ? html`<form method="post" action="/admin/apps/${app.id}/tokens/${t.id}/revoke"><input type="hidden" name="_csrf" value="${csrf}"><button class="danger" type="submit" aria-label="Revoke ${t.label}">Revoke</button></form>` : ''}</td></tr>`)}</tbody></table>`}
<h2 id="new-token">New non-expiring token</h2>
${errorBox(input.errors)}
<form class="card" method="post" action="/admin/apps/${app.id}/tokens" aria-labelledby="new-token">
  <input type="hidden" name="_csrf" value="${csrf}">
  <div class="field"><label for="label">Label</label><p class="hint" id="label_hint">Who or what uses it, for example "Nightly sync".</p>
    <input id="label" name="label" type="text" maxlength="100" aria-describedby="label_hint"></div>
  <fieldset><legend>Scopes</legend><p class="hint">A non-expiring token never reads encrypted fields; use OAuth with <code>decrypt</code> for those.</p>
    <div class="scopes">${tokenScopes.map((s) => html`<label class="choice"><input type="checkbox" name="scopes" value="${s}" ${input.chosen.includes(s) ? 'checked' : ''}> <span><code>${s}</code><br><span class="muted">${scopeLabel(s)}</span></span></label>`)}</div>
  </fieldset>
  <div class="actions"><button type="submit">Create token</button></div>
</form>`;
}

function tokenShownPage(app: App, token: string, scopes: Scope[]): Markup {
  return html`${crumbs(...TRAIL, app.name, 'New token')}<h1>Token created</h1>
<div class="notice" role="status">Copy the token now. It is shown only this once; the store keeps only its hash.</div>
<div class="card"><dl class="facts">
  <dt>Token</dt><dd><code class="secret" id="token">${token}</code></dd>
  <dt>Scopes</dt><dd>${scopes.map((s) => html`<code>${s}</code> `)}</dd>
  <dt>Use</dt><dd>Send it in the <code>X-AC-Auth-Token</code> header.</dd>
</dl><div class="actions"><a class="button" href="/admin/apps/${app.id}">Back to ${app.name}</a></div></div>`;
}

export function appRoutes(app: FastifyInstance, { ctx }: ConsoleOptions): void {
  const signedIn = (email: string, csrf: string) => ({ email, csrf, section: 'apps' as const });

  app.get('/admin/apps', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const apps = await listApps(ctx, session.admin.storeId);
    return sendPage(reply, 200, page({ title: 'API Apps & Integrations', signedIn: signedIn(session.admin.email, sessionCsrf(ctx, request)), body: listPage(apps) }));
  });

  app.get('/admin/apps/new', (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const csrf = sessionCsrf(ctx, request);
    return sendPage(reply, 200, page({ title: 'New API app', signedIn: signedIn(session.admin.email, csrf), body: newAppForm(csrf, { name: '', kind: 'custom', redirectUri: '' }, []) }));
  });

  app.post('/admin/apps', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const csrf = sessionCsrf(ctx, request);
    const values = { name: formField(request, 'name'), kind: formField(request, 'kind'), redirectUri: formField(request, 'redirect_uri') };
    try {
      const kind: AppKind = values.kind === 'installed' ? 'installed' : 'custom';
      const saved = await createApp(ctx, session.admin.storeId, { name: values.name, kind, redirectUri: values.redirectUri });
      return sendPage(reply, 201, page({ title: 'App saved', signedIn: signedIn(session.admin.email, csrf), body: savedPage(saved.app, saved.secret) }));
    } catch (error) {
      if (!(error instanceof AppInputError)) throw error;
      return sendPage(reply, 400, page({ title: 'New API app', signedIn: signedIn(session.admin.email, csrf), body: newAppForm(csrf, values, [error.message]) }));
    }
  });

  async function appFor(storeId: number, id: string): Promise<App | undefined> {
    return /^\d{1,9}$/.test(id) ? findApp(ctx, { id: Number(id), storeId }) : undefined;
  }

  async function renderApp(reply: Parameters<typeof sendPage>[0], status: number, email: string, csrf: string, found: App, errors: string[] = [], chosen: string[] = []) {
    const tokens = await listTokens(ctx, found);
    return sendPage(reply, status, page({ title: found.name, signedIn: signedIn(email, csrf), body: appPage({ app: found, tokens, csrf, now: iso(ctx.now()), errors, chosen }) }));
  }

  const notFound = (reply: Parameters<typeof sendPage>[0], email: string, csrf: string) =>
    sendPage(reply, 404, page({ title: 'No such app', signedIn: signedIn(email, csrf), body: html`<h1>No such app</h1><p><a href="/admin/apps">All apps</a></p>` }));

  app.get<{ Params: { id: string } }>('/admin/apps/:id', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const csrf = sessionCsrf(ctx, request);
    const found = await appFor(session.admin.storeId, request.params.id);
    return found === undefined ? notFound(reply, session.admin.email, csrf) : renderApp(reply, 200, session.admin.email, csrf, found);
  });

  app.post<{ Params: { id: string } }>('/admin/apps/:id/tokens', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const csrf = sessionCsrf(ctx, request);
    const found = await appFor(session.admin.storeId, request.params.id);
    if (found === undefined) return notFound(reply, session.admin.email, csrf);
    const chosen = formList(request, 'scopes');
    try {
      const issued = await createConsoleToken(ctx, found, { label: formField(request, 'label'), scopes: chosen, adminUserId: session.admin.id });
      return sendPage(reply, 201, page({ title: 'Token created', signedIn: signedIn(session.admin.email, csrf), body: tokenShownPage(found, issued.accessToken, issued.record.scopes) }));
    } catch (error) {
      if (!(error instanceof TokenInputError || error instanceof ScopeError)) throw error;
      return renderApp(reply, 400, session.admin.email, csrf, found, [error.message], chosen);
    }
  });

  app.post<{ Params: { id: string; tokenId: string } }>('/admin/apps/:id/tokens/:tokenId/revoke', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const found = await appFor(session.admin.storeId, request.params.id);
    if (found === undefined) return notFound(reply, session.admin.email, sessionCsrf(ctx, request));
    const tokens = await listTokens(ctx, found);
    const token = tokens.find((t) => String(t.id) === request.params.tokenId);
    if (token !== undefined) await revokeToken(ctx, session.admin.storeId, token.id);
    return reply.redirect(`/admin/apps/${found.id}#tokens`, 303);
  });
}
