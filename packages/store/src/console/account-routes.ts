// Your account: the signed-in admin changes their own password.
import type { FastifyInstance } from 'fastify';
import { AdminInputError, changePassword } from '../auth/admins.ts';
import { formField, requireAdmin, sendPage, sessionCsrf, type ConsoleOptions } from './console-request.ts';
import { html, type Markup } from './html.ts';
import { crumbs, errorBox, HOME, page } from './layout.ts';

function accountPage(csrf: string, email: string, errors: string[], saved: boolean): Markup {
  return html`${crumbs(HOME, { text: 'Your account' })}<h1>Your account</h1>
${saved ? html`<div class="notice" role="status">Password changed. Your other sessions were signed out.</div>` : ''}
<div class="card"><dl class="facts"><dt>Email</dt><dd>${email}</dd></dl></div>
<h2 id="password">Change your password</h2>
${errorBox(errors)}
<form class="card" method="post" action="/admin/account/password" aria-labelledby="password">
  <input type="hidden" name="_csrf" value="${csrf}">
  <input type="text" name="username" autocomplete="username" value="${email}" hidden>
  <div class="field"><label for="current">Current password</label>
    <input id="current" name="current" type="password" autocomplete="current-password" required></div>
  <div class="field"><label for="next">New password</label><p class="hint" id="next_hint">At least 10 characters.</p>
    <input id="next" name="next" type="password" autocomplete="new-password" minlength="10" required aria-describedby="next_hint"></div>
  <div class="field"><label for="repeated">New password again</label>
    <input id="repeated" name="repeated" type="password" autocomplete="new-password" minlength="10" required></div>
  <div class="actions"><button type="submit">Change password</button></div>
</form>`;
}

export function accountRoutes(app: FastifyInstance, { ctx }: ConsoleOptions): void {
  app.get<{ Querystring: { saved?: string } }>('/admin/account', (request, reply) => {
    const session = requireAdmin(request, reply, 'signed-in');
    if (session === undefined) return reply;
    const csrf = sessionCsrf(ctx, request);
    return sendPage(
      reply,
      200,
      page({
        title: 'Your account',
        signedIn: { email: session.admin.email, csrf, section: 'account', settings: session.admin.access.includes('settings') },
        body: accountPage(csrf, session.admin.email, [], request.query.saved === '1'),
      }),
    );
  });

  app.post('/admin/account/password', async (request, reply) => {
    const session = requireAdmin(request, reply, 'signed-in');
    if (session === undefined) return reply;
    try {
      await changePassword(ctx, session.admin, {
        current: formField(request, 'current'),
        next: formField(request, 'next'),
        repeated: formField(request, 'repeated'),
        keepSessionId: session.id,
        address: request.ip,
      });
    } catch (error) {
      if (!(error instanceof AdminInputError)) throw error;
      const csrf = sessionCsrf(ctx, request);
      return sendPage(
        reply,
        400,
        page({
          title: 'Your account',
          signedIn: { email: session.admin.email, csrf, section: 'account', settings: session.admin.access.includes('settings') },
          body: accountPage(csrf, session.admin.email, [error.message], false),
        }),
      );
    }
    return reply.redirect('/admin/account?saved=1', 303);
  });
}
