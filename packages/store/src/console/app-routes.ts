// Tools > Apps & Addons > API Apps & Integrations: apps (new, edit, delete), their App ID and Secret
// (shown once, rotated on demand), and their tokens.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppInputError, createApp, deleteApp, findApp, listApps, rotateSecret, updateApp, type App } from '../auth/apps.ts';
import type { AppKind } from '../auth/schema.ts';
import { ScopeError, type Scope } from '../auth/scopes.ts';
import { createConsoleToken, listTokens, revokeToken, TokenInputError, type TokenRecord } from '../auth/tokens.ts';
import { iso } from '../auth/iso-time.ts';
import { recordsOf } from '../records/records.ts';
import { webhooks } from '../model/declarations/webhooks.ts';
import { formField, requireAdmin, sendPage, sessionCsrf, type ConsoleOptions } from './console-request.ts';
import { parseRecordId } from '../http/record-id.ts';
import { html, type Markup } from './html.ts';
import { copyable, crumbs, errorBox, page, TOOLS_TRAIL, type Crumb } from './layout.ts';
import { accessFieldset, scopeSummary, scopesFromForm } from './scope-form.ts';

const LIST: Crumb = { text: 'API Apps & Integrations', href: '/admin/apps' };
const kindText: Record<AppKind, string> = { custom: 'Custom app', installed: 'Installed app' };
const appCrumb = (app: App): Crumb => ({ text: app.name, href: `/admin/apps/${app.id}` });
const minutes = (at: string) => `${at.slice(0, 16).replace('T', ' ')} UTC`;

interface AppValues {
  name: string;
  kind: string;
  redirectUri: string;
}

function listPage(apps: App[], deleted: boolean): Markup {
  return html`${crumbs(...TOOLS_TRAIL, LIST)}<h1>API Apps &amp; Integrations</h1>
${deleted ? html`<div class="notice" role="status">The app was deleted, with its tokens.</div>` : ''}
<div class="actions toolbar"><a class="button" href="/admin/apps/new">New</a></div>
${
  apps.length === 0
    ? html`<div class="card"><p>No apps yet. Choose <strong>New</strong> to register one; saving it shows its App ID and App Secret.</p></div>`
    : html`<table class="stack"><caption class="skip">Registered apps</caption>
<thead><tr><th scope="col">Name</th><th scope="col">App ID</th><th scope="col">Kind</th><th scope="col">Created</th></tr></thead>
<tbody>${apps.map((a) => html`<tr><td data-label="Name"><a href="/admin/apps/${a.id}">${a.name}</a></td><td data-label="App ID"><code>${a.clientId}</code></td><td data-label="Kind">${kindText[a.kind]}</td><td data-label="Created">${a.createdAt.slice(0, 10)}</td></tr>`)}</tbody></table>`
}`;
}

/** The fields of a new app and of an app being edited. */
function appFields(values: AppValues): Markup {
  const kind = values.kind === 'installed' ? 'installed' : 'custom';
  return html`<div class="field"><label for="name">App name</label>
    <input id="name" name="name" type="text" maxlength="100" required value="${values.name}"></div>
  <fieldset><legend>Kind</legend>
    <label class="choice"><input type="radio" name="kind" value="custom" ${kind === 'custom' ? 'checked' : ''}> <span>Custom app <span class="muted">— made for this store only; its rate limit follows the store plan</span></span></label>
    <label class="choice"><input type="radio" name="kind" value="installed" ${kind === 'installed' ? 'checked' : ''}> <span>Installed app <span class="muted">— from the app store or an integration; installed apps share 50 calls per 10 seconds</span></span></label>
  </fieldset>
  <div class="field"><label for="redirect_uri">OAuth redirect URI</label>
    <p class="hint" id="redirect_hint">Where the store sends admins back after they grant access. Leave empty if the app only uses tokens made here.</p>
    <input id="redirect_uri" name="redirect_uri" type="url" maxlength="2000" aria-describedby="redirect_hint" value="${values.redirectUri}"></div>`;
}

function newAppForm(csrf: string, values: AppValues, errors: string[]): Markup {
  return html`${crumbs(...TOOLS_TRAIL, LIST, { text: 'New' })}<h1>New API app</h1>${errorBox(errors)}
<form class="card" method="post" action="/admin/apps">
  <input type="hidden" name="_csrf" value="${csrf}">
  ${appFields(values)}
  <div class="actions"><button type="submit">Save</button><a class="button secondary" href="/admin/apps">Cancel</a></div>
</form>`;
}

function editForm(csrf: string, app: App, values: AppValues, errors: string[]): Markup {
  return html`${crumbs(...TOOLS_TRAIL, LIST, appCrumb(app), { text: 'Edit' })}<h1>Edit ${app.name}</h1>${errorBox(errors)}
<form class="card" method="post" action="/admin/apps/${app.id}">
  <input type="hidden" name="_csrf" value="${csrf}">
  ${appFields(values)}
  <div class="actions"><button type="submit">Save changes</button><a class="button secondary" href="/admin/apps/${app.id}">Cancel</a></div>
</form>`;
}

function secretShownPage(app: App, secret: string, rotated: boolean): Markup {
  return html`${crumbs(...TOOLS_TRAIL, LIST, appCrumb(app), { text: rotated ? 'New secret' : 'Saved' })}<h1>${rotated ? 'New App Secret' : 'App saved'}</h1>
<div class="notice" role="status">${rotated ? 'The previous secret no longer works. ' : ''}Copy the App Secret now. It is shown only this once.</div>
<div class="card"><dl class="facts">
  <dt>App name</dt><dd>${app.name}</dd>
  <dt>App ID</dt><dd>${copyable('app-id', app.clientId, 'the App ID')}</dd>
  <dt>App Secret</dt><dd>${copyable('app-secret', secret, 'the App Secret')}</dd>
</dl>
<div class="actions"><a class="button" href="/admin/apps/${app.id}">Continue to the app</a></div></div>`;
}

function statusOf(token: TokenRecord, now: string): Markup {
  if (token.revokedAt !== null) return html`<span class="badge revoked">Revoked</span>`;
  if (token.expiresAt !== null && token.expiresAt <= now) return html`<span class="badge expired">Expired</span>`;
  return html`<span class="badge active">Active</span>`;
}

function tokenTable(app: App, tokens: TokenRecord[], csrf: string, now: string): Markup {
  if (tokens.length === 0) return html`<p class="muted">This app has no tokens yet.</p>`;
  return html`<table class="stack" aria-labelledby="tokens"><thead><tr><th scope="col">Label</th><th scope="col">Kind</th><th scope="col">Access</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="skip">Action</span></th></tr></thead>
<tbody>${tokens.map(
    (
      t,
    ) => html`<tr><td data-label="Label">${t.label}</td><td data-label="Kind">${t.kind === 'console' ? 'Non-expiring' : 'OAuth'}</td><td data-label="Access">${scopeSummary(t.scopes)}</td>
<td data-label="Expires">${t.expiresAt === null ? 'never' : minutes(t.expiresAt)}</td><td data-label="Status">${statusOf(t, now)}</td>
<td>${t.revokedAt === null ? html`<form method="post" action="/admin/apps/${app.id}/tokens/${t.id}/revoke"><input type="hidden" name="_csrf" value="${csrf}"><button class="danger" type="submit" aria-label="Revoke ${t.label}">Revoke</button></form>` : ''}</td></tr>`,
  )}</tbody></table>`;
}

function appPage(input: {
  app: App;
  tokens: TokenRecord[];
  csrf: string;
  now: string;
  errors: string[];
  chosen: Scope[];
  saved: boolean;
}): Markup {
  const { app, csrf } = input;
  return html`${crumbs(...TOOLS_TRAIL, LIST, { text: app.name })}<h1>${app.name}</h1>
${input.saved ? html`<div class="notice" role="status">Changes saved.</div>` : ''}
<div class="card"><dl class="facts">
  <dt>App ID</dt><dd>${copyable('app-id', app.clientId, 'the App ID', false)}</dd>
  <dt>App Secret</dt><dd><span class="muted">shown only when saved or rotated</span></dd>
  <dt>Kind</dt><dd>${kindText[app.kind]}</dd>
  <dt>Redirect URI</dt><dd>${app.redirectUri === null ? html`<span class="muted">none (tokens only)</span>` : html`<code>${app.redirectUri}</code>`}</dd>
  <dt>Created</dt><dd>${minutes(app.createdAt)}</dd>
</dl>
<div class="actions"><a class="button secondary" href="/admin/apps/${app.id}/edit">Edit app</a></div></div>
<h2 id="tokens">Tokens</h2>
${tokenTable(app, input.tokens, csrf, input.now)}
<h2 id="new-token">New non-expiring token</h2>
${errorBox(input.errors)}
<form class="card" method="post" action="/admin/apps/${app.id}/tokens" aria-labelledby="new-token">
  <input type="hidden" name="_csrf" value="${csrf}">
  <div class="field"><label for="label">Label</label><p class="hint" id="label_hint">Who or what uses it, for example "Nightly sync".</p>
    <input id="label" name="label" type="text" maxlength="100" aria-describedby="label_hint"></div>
  ${accessFieldset(input.chosen)}
  <p class="hint">A non-expiring token never reads fields kept encrypted; an OAuth grant with <code>decrypt</code> can.</p>
  <div class="actions"><button type="submit">Create token</button></div>
</form>
<h2 id="danger">Secret and deletion</h2>
<div class="card">
  <form method="post" action="/admin/apps/${app.id}/secret">
    <input type="hidden" name="_csrf" value="${csrf}">
    <p id="rotate_hint">A new App Secret replaces the current one at once: OAuth exchanges and webhook signatures then need the new one. Tokens already issued keep working.</p>
    <button class="danger big" type="submit" aria-describedby="rotate_hint">Rotate secret</button>
  </form>
  <div class="actions"><a class="button secondary" href="/admin/apps/${app.id}/delete">Delete app…</a></div>
</div>`;
}

function deletePage(csrf: string, app: App, activeTokens: number, subscriptions: number): Markup {
  return html`${crumbs(...TOOLS_TRAIL, LIST, appCrumb(app), { text: 'Delete' })}<h1>Delete ${app.name}?</h1>
<form class="card" method="post" action="/admin/apps/${app.id}/delete">
  <input type="hidden" name="_csrf" value="${csrf}">
  <p>This cannot be undone. Deleting the app:</p>
  <ul>
    <li>stops its ${activeTokens} active token${activeTokens === 1 ? '' : 's'} at once,</li>
    ${subscriptions === 0 ? '' : html`<li>removes its ${subscriptions} webhook subscription${subscriptions === 1 ? '' : 's'} (they are signed with its secret),</li>`}
    <li>and its App ID and App Secret stop working.</li>
  </ul>
  <div class="actions"><button class="danger big" type="submit">Delete ${app.name}</button><a class="button secondary" href="/admin/apps/${app.id}">Cancel</a></div>
</form>`;
}

function tokenShownPage(app: App, token: string, scopes: Scope[]): Markup {
  return html`${crumbs(...TOOLS_TRAIL, LIST, appCrumb(app), { text: 'New token' })}<h1>Token created</h1>
<div class="notice" role="status">Copy the token now. It is shown only this once; the store keeps only its hash.</div>
<div class="card"><dl class="facts">
  <dt>Token</dt><dd>${copyable('token', token, 'the token')}</dd>
  <dt>Access</dt><dd>${scopeSummary(scopes)} <span class="muted">(${scopes.join(' ')})</span></dd>
  <dt>Use</dt><dd>Send it in the <code>X-AC-Auth-Token</code> header.</dd>
</dl><div class="actions"><a class="button" href="/admin/apps/${app.id}">Back to ${app.name}</a></div></div>`;
}

/** The signed-in admin (with settings access), the CSRF token, and a page renderer. */
interface ConsolePage {
  readonly session: NonNullable<ReturnType<typeof requireAdmin>>;
  readonly csrf: string;
  readonly show: (status: number, title: string, body: Markup) => FastifyReply;
}

/** What the app pages share: the console's options, and the steps every page of one app takes first. */
interface AppPages {
  readonly options: ConsoleOptions;
  readonly ctx: ConsoleOptions['ctx'];
  /** The console page for the request; undefined once answered (not signed in). */
  readonly consoleFor: (request: FastifyRequest, reply: FastifyReply) => ConsolePage | undefined;
  /** Runs `page` with the app the path's `:id` names in the admin's store; answers 404 when there is none. */
  readonly withApp: (
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    page: (c: ConsolePage, found: App) => Promise<FastifyReply> | FastifyReply,
  ) => Promise<FastifyReply>;
  readonly renderApp: (
    c: ConsolePage,
    status: number,
    found: App,
    extra?: { errors?: string[]; chosen?: Scope[]; saved?: boolean },
  ) => Promise<FastifyReply>;
  /** The ids of the webhook subscriptions the app made. */
  readonly subscriptionsOf: (found: App) => Promise<number[]>;
}

const valuesOf = (request: FastifyRequest): AppValues => ({
  name: formField(request, 'name'),
  kind: formField(request, 'kind'),
  redirectUri: formField(request, 'redirect_uri'),
});
const kindOf = (values: AppValues): AppKind => (values.kind === 'installed' ? 'installed' : 'custom');
const notFound = (show: ConsolePage['show']) =>
  show(
    404,
    'No such app',
    html`${crumbs(...TOOLS_TRAIL, LIST, { text: 'No such app' })}<h1>No such app</h1><p><a href="/admin/apps">All apps</a></p>`,
  );

function appPages(options: ConsoleOptions): AppPages {
  const { ctx } = options;
  const consoleFor = (request: FastifyRequest, reply: FastifyReply): ConsolePage | undefined => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return undefined;
    const csrf = sessionCsrf(ctx, request);
    const show = (status: number, title: string, body: Markup) =>
      sendPage(reply, status, page({ title, signedIn: { email: session.admin.email, csrf, section: 'apps' }, body }));
    return { session, csrf, show };
  };
  return {
    options,
    ctx,
    consoleFor,
    async withApp(request, reply, then) {
      const c = consoleFor(request, reply);
      if (c === undefined) return reply;
      const appId = parseRecordId(request.params.id);
      const found = appId === undefined ? undefined : await findApp(ctx, { id: appId, storeId: c.session.admin.storeId });
      return found === undefined ? notFound(c.show) : then(c, found);
    },
    async renderApp(c, status, found, extra = {}) {
      const tokens = await listTokens(ctx, found);
      return c.show(
        status,
        found.name,
        appPage({
          app: found,
          tokens,
          csrf: c.csrf,
          now: iso(ctx.now()),
          errors: extra.errors ?? [],
          chosen: extra.chosen ?? [],
          saved: extra.saved ?? false,
        }),
      );
    },
    async subscriptionsOf(found) {
      if (options.webhooks === undefined) return [];
      return (
        await options.webhooks.database.db.selectFrom('webhooks').select('id').where('app_client_id', '=', found.clientId).execute()
      ).map((r) => Number(r.id));
    },
  };
}

export function appRoutes(app: FastifyInstance, options: ConsoleOptions): void {
  const pages = appPages(options);
  listRoutes(app, pages);
  oneAppRoutes(app, pages);
  tokenRoutes(app, pages);
}

/** The list of apps, and a new app. */
function listRoutes(app: FastifyInstance, { ctx, consoleFor }: AppPages): void {
  app.get<{ Querystring: { deleted?: string } }>('/admin/apps', async (request, reply) => {
    const c = consoleFor(request, reply);
    if (c === undefined) return reply;
    return c.show(200, 'API Apps & Integrations', listPage(await listApps(ctx, c.session.admin.storeId), request.query.deleted === '1'));
  });

  app.get('/admin/apps/new', (request, reply) => {
    const c = consoleFor(request, reply);
    if (c === undefined) return reply;
    return c.show(200, 'New API app', newAppForm(c.csrf, { name: '', kind: 'custom', redirectUri: '' }, []));
  });

  app.post('/admin/apps', async (request, reply) => {
    const c = consoleFor(request, reply);
    if (c === undefined) return reply;
    const values = valuesOf(request);
    try {
      const saved = await createApp(ctx, c.session.admin.storeId, {
        name: values.name,
        kind: kindOf(values),
        redirectUri: values.redirectUri,
      });
      return c.show(201, 'App saved', secretShownPage(saved.app, saved.secret, false));
    } catch (error) {
      if (!(error instanceof AppInputError)) throw error;
      return c.show(400, 'New API app', newAppForm(c.csrf, values, [error.message]));
    }
  });
}

/** One app: its page, its edit, a new secret, its deletion. */
function oneAppRoutes(app: FastifyInstance, pages: AppPages): void {
  const { ctx, options, withApp, renderApp, subscriptionsOf } = pages;
  app.get<{ Params: { id: string }; Querystring: { saved?: string } }>('/admin/apps/:id', (request, reply) =>
    withApp(request, reply, (c, found) => renderApp(c, 200, found, { saved: request.query.saved === '1' })),
  );

  app.get<{ Params: { id: string } }>('/admin/apps/:id/edit', (request, reply) =>
    withApp(request, reply, (c, found) =>
      c.show(
        200,
        `Edit ${found.name}`,
        editForm(c.csrf, found, { name: found.name, kind: found.kind, redirectUri: found.redirectUri ?? '' }, []),
      ),
    ),
  );

  app.post<{ Params: { id: string } }>('/admin/apps/:id', (request, reply) =>
    withApp(request, reply, async (c, found) => {
      const values = valuesOf(request);
      try {
        await updateApp(ctx, found, { name: values.name, kind: kindOf(values), redirectUri: values.redirectUri });
      } catch (error) {
        if (!(error instanceof AppInputError)) throw error;
        return c.show(400, `Edit ${found.name}`, editForm(c.csrf, found, values, [error.message]));
      }
      return reply.redirect(`/admin/apps/${found.id}?saved=1`, 303);
    }),
  );

  app.post<{ Params: { id: string } }>('/admin/apps/:id/secret', (request, reply) =>
    withApp(request, reply, async (c, found) =>
      c.show(200, 'New App Secret', secretShownPage(found, await rotateSecret(ctx, found), true)),
    ),
  );

  app.get<{ Params: { id: string } }>('/admin/apps/:id/delete', (request, reply) =>
    withApp(request, reply, async (c, found) => {
      const now = iso(ctx.now());
      const active = (await listTokens(ctx, found)).filter(
        (t) => t.revokedAt === null && (t.expiresAt === null || t.expiresAt > now),
      ).length;
      return c.show(200, `Delete ${found.name}`, deletePage(c.csrf, found, active, (await subscriptionsOf(found)).length));
    }),
  );

  app.post<{ Params: { id: string } }>('/admin/apps/:id/delete', (request, reply) =>
    withApp(request, reply, async (_c, found) => {
      // Its subscriptions could no longer be signed: they go with it.
      if (options.webhooks !== undefined) {
        const subscriptions = recordsOf(options.webhooks.database, webhooks);
        for (const id of await subscriptionsOf(found)) await subscriptions.remove(id);
      }
      await deleteApp(ctx, found);
      return reply.redirect('/admin/apps?deleted=1', 303);
    }),
  );
}

/** An app's tokens: a new non-expiring one, and revoking one. */
function tokenRoutes(app: FastifyInstance, { ctx, withApp, renderApp }: AppPages): void {
  app.post<{ Params: { id: string } }>('/admin/apps/:id/tokens', (request, reply) =>
    withApp(request, reply, async (c, found) => {
      const chosen = scopesFromForm(request.body as Record<string, string> | undefined);
      try {
        const issued = await createConsoleToken(ctx, found, {
          label: formField(request, 'label'),
          scopes: chosen,
          adminUserId: c.session.admin.id,
        });
        return c.show(201, 'Token created', tokenShownPage(found, issued.accessToken, issued.record.scopes));
      } catch (error) {
        if (!(error instanceof TokenInputError || error instanceof ScopeError)) throw error;
        const message =
          error instanceof TokenInputError && chosen.length === 0
            ? 'Give the token Read or Read and modify in at least one area.'
            : error.message;
        return renderApp(c, 400, found, { errors: [message], chosen });
      }
    }),
  );

  app.post<{ Params: { id: string; tokenId: string } }>('/admin/apps/:id/tokens/:tokenId/revoke', (request, reply) =>
    withApp(request, reply, async (c, found) => {
      const tokenId = parseRecordId(request.params.tokenId);
      const token = tokenId === undefined ? undefined : (await listTokens(ctx, found)).find((t) => t.id === tokenId);
      if (token !== undefined) await revokeToken(ctx, c.session.admin.storeId, token.id);
      return reply.redirect(`/admin/apps/${found.id}#tokens`, 303);
    }),
  );
}
