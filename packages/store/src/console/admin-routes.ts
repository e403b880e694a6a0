// Settings › Admins: who may sign in to this store's console, adding one (with a first password shown
// once, to pass on) and removing one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  addAdmin,
  AdminInputError,
  allGroups,
  listAdmins,
  newAdminPassword,
  removeAdmin,
  type Admin,
  type AdminListing,
} from '../auth/admins.ts';
import type { ResourceGroup } from '../auth/scopes.ts';
import { formField, formList, requireAdmin, sendNotFound, sendPage, sessionCsrf, type ConsoleOptions } from './console-request.ts';
import { parseRecordId } from '../http/record-id.ts';
import { html, type Markup } from './html.ts';
import { copyable, crumbs, errorBox, page, SETTINGS_TRAIL, type Crumb } from './layout.ts';
import { areas } from './scope-areas.ts';

const LIST: Crumb = { text: 'Admins', href: '/admin/admins' };
/** An admin's access is per area of the API; the names are the scope areas'. */
const groupName = (group: ResourceGroup) => areas.find((a) => a.id === group)?.name ?? group;

function adminRows(admins: AdminListing[], me: Admin): Markup {
  return html`<table class="stack"><caption class="skip">Admins of this store</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Access</th><th scope="col">Added</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
<tbody>${admins.map(
    (a) => html`<tr><td data-label="Email">${a.email}${a.id === me.id ? html` <span class="badge">you</span>` : ''}</td>
<td data-label="Access">${a.access.length === allGroups.length ? 'Every area' : a.access.map(groupName).join(', ')}</td><td data-label="Added">${a.createdAt.slice(0, 10)}</td>
<td>${a.id === me.id ? html`<a href="/admin/account">Change your password</a>` : admins.length > 1 ? html`<a href="/admin/admins/${a.id}/remove" aria-label="Remove ${a.email}">Remove…</a>` : ''}</td></tr>`,
  )}</tbody></table>`;
}

function listPage(input: {
  csrf: string;
  admins: AdminListing[];
  me: Admin;
  email: string;
  access: readonly string[];
  errors: string[];
  removed: boolean;
}): Markup {
  return html`${crumbs(...SETTINGS_TRAIL, LIST)}<h1>Admins</h1>
${input.removed ? html`<div class="notice" role="status">The admin was removed and signed out.</div>` : ''}
${adminRows(input.admins, input.me)}
<h2 id="add">Add an admin</h2>
${errorBox(input.errors)}
<form class="card" method="post" action="/admin/admins" aria-labelledby="add">
  <input type="hidden" name="_csrf" value="${input.csrf}">
  <div class="field"><label for="email">Email</label>
    <input id="email" name="email" type="email" maxlength="254" required autocomplete="off" value="${input.email}"></div>
  <fieldset><legend>Access</legend><p class="hint">The areas this admin may see. Settings includes this page, apps, webhooks and the plan.</p>
    <div class="scopes">${allGroups.map((g) => html`<label class="choice"><input type="checkbox" name="access" value="${g}" ${input.access.includes(g) ? 'checked' : ''}> <span>${groupName(g)}</span></label>`)}</div>
  </fieldset>
  <p class="hint">The store makes a first password and shows it once, for you to pass on; they can change it under their email at the top of any page.</p>
  <div class="actions"><button type="submit">Add admin</button></div>
</form>`;
}

function addedPage(admin: Admin, password: string): Markup {
  return html`${crumbs(...SETTINGS_TRAIL, LIST, { text: 'Added' })}<h1>Admin added</h1>
<div class="notice" role="status">Pass this password on to ${admin.email} now. It is shown only this once; the store keeps only its hash.</div>
<div class="card"><dl class="facts">
  <dt>Email</dt><dd>${admin.email}</dd>
  <dt>Sign-in address</dt><dd><code>/admin/sign-in</code> on this site</dd>
  <dt>First password</dt><dd>${copyable('admin-password', password, 'the password')}</dd>
</dl><div class="actions"><a class="button" href="/admin/admins">Back to admins</a></div></div>`;
}

function removePage(csrf: string, admin: AdminListing): Markup {
  return html`${crumbs(...SETTINGS_TRAIL, LIST, { text: 'Remove' })}<h1>Remove ${admin.email}?</h1>
<form class="card" method="post" action="/admin/admins/${admin.id}/remove">
  <input type="hidden" name="_csrf" value="${csrf}">
  <p>They are signed out at once and can no longer sign in. Apps and tokens they made stay.</p>
  <div class="actions"><button class="danger big" type="submit">Remove ${admin.email}</button><a class="button secondary" href="/admin/admins">Cancel</a></div>
</form>`;
}

export function adminRoutes(app: FastifyInstance, { ctx }: ConsoleOptions): void {
  function consoleFor(request: FastifyRequest, reply: FastifyReply) {
    const session = requireAdmin(request, reply);
    if (session === undefined) return undefined;
    const csrf = sessionCsrf(ctx, request);
    const show = (status: number, title: string, body: Markup) =>
      sendPage(reply, status, page({ title, signedIn: { email: session.admin.email, csrf, section: 'admins' }, body }));
    return { me: session.admin, csrf, show };
  }

  async function showList(
    c: NonNullable<ReturnType<typeof consoleFor>>,
    status: number,
    form: { email: string; access: readonly string[]; errors: string[] },
    removed = false,
  ) {
    const admins = await listAdmins(ctx, c.me.storeId);
    return c.show(status, 'Admins', listPage({ csrf: c.csrf, admins, me: c.me, removed, ...form }));
  }

  const adminFor = async (storeId: number, text: string) => {
    const id = parseRecordId(text);
    return id === undefined ? undefined : (await listAdmins(ctx, storeId)).find((a) => a.id === id);
  };

  app.get<{ Querystring: { removed?: string } }>('/admin/admins', async (request, reply) => {
    const c = consoleFor(request, reply);
    if (c === undefined) return reply;
    return showList(c, 200, { email: '', access: allGroups.filter((g) => g !== 'settings'), errors: [] }, request.query.removed === '1');
  });

  app.post('/admin/admins', async (request, reply) => {
    const c = consoleFor(request, reply);
    if (c === undefined) return reply;
    const email = formField(request, 'email');
    const access = allGroups.filter((g) => formList(request, 'access').includes(g));
    const password = newAdminPassword();
    try {
      const added = await addAdmin(ctx, c.me.storeId, { email, password, access });
      return c.show(201, 'Admin added', addedPage(added, password));
    } catch (error) {
      if (!(error instanceof AdminInputError)) throw error;
      return showList(c, 400, { email, access, errors: [error.message] });
    }
  });

  app.get<{ Params: { id: string } }>('/admin/admins/:id/remove', async (request, reply) => {
    const c = consoleFor(request, reply);
    if (c === undefined) return reply;
    const found = await adminFor(c.me.storeId, request.params.id);
    if (found === undefined) return sendNotFound(reply);
    if (found.id === c.me.id)
      return showList(c, 400, { email: '', access: [], errors: ['You cannot remove yourself; ask another admin to do it.'] });
    return c.show(200, `Remove ${found.email}`, removePage(c.csrf, found));
  });

  app.post<{ Params: { id: string } }>('/admin/admins/:id/remove', async (request, reply) => {
    const c = consoleFor(request, reply);
    if (c === undefined) return reply;
    const found = await adminFor(c.me.storeId, request.params.id);
    if (found === undefined) return sendNotFound(reply);
    try {
      await removeAdmin(ctx, c.me, found.id);
    } catch (error) {
      if (!(error instanceof AdminInputError)) throw error;
      return showList(c, 400, { email: '', access: [], errors: [error.message] });
    }
    return reply.redirect('/admin/admins?removed=1', 303);
  });
}
