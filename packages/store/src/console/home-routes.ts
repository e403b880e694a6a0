// The console's first page: where everything is, in the platform's menu order.
import type { FastifyInstance } from 'fastify';
import { requireAdmin, sendPage, sessionCsrf, type ConsoleOptions } from './console-request.ts';
import { html, type Markup } from './html.ts';
import { crumbs, HOME, page } from './layout.ts';

function homePage(settings: boolean): Markup {
  return html`${crumbs(HOME)}<h1>Store admin</h1>
<div class="sections">
  <section class="card" aria-labelledby="tools"><h2 id="tools">Tools</h2>
    <h3 id="apps-addons">Apps &amp; Addons</h3>
    <ul><li>${settings ? html`<a href="/admin/apps">API Apps &amp; Integrations</a>` : 'API Apps & Integrations (needs settings access)'} <span class="muted">— App IDs, secrets and tokens</span></li></ul>
  </section>
  <section class="card" aria-labelledby="settings"><h2 id="settings">Settings</h2>
    ${
      settings
        ? html`<ul><li><a href="/admin/webhooks">Webhooks</a></li><li><a href="/admin/plan">Store plan</a> <span class="muted">— sets custom apps' rate limit</span></li><li><a href="/admin/admins">Admins</a></li></ul>`
        : html`<p class="muted">Your account has no settings access.</p>`
    }
  </section>
  <section class="card" aria-labelledby="developers"><h2 id="developers">Developers</h2>
    <ul><li><a href="/api/v1/docs">API documentation</a></li><li><a href="/api/v1/openapi.json">OpenAPI document</a></li><li><a href="/admin/account">Your account</a></li></ul>
  </section>
</div>`;
}

export function homeRoutes(app: FastifyInstance, { ctx }: ConsoleOptions): void {
  app.get('/admin', (request, reply) => {
    const session = requireAdmin(request, reply, 'signed-in');
    if (session === undefined) return reply;
    const csrf = sessionCsrf(ctx, request);
    return sendPage(
      reply,
      200,
      page({
        title: 'Store admin',
        signedIn: { email: session.admin.email, csrf, section: 'home', settings: session.admin.access.includes('settings') },
        body: homePage(session.admin.access.includes('settings')),
      }),
    );
  });
}
