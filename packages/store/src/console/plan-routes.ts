// The store's plan level, which sets custom apps' rate limit.
import type { FastifyInstance } from 'fastify';
import { customAppLimit, INSTALLED_APPS_LIMIT, isPlan, planName, plans, readPlan, setPlan, type Plan } from '../limits/plans.ts';
import { formField, requireAdmin, sendPage, sessionCsrf, type ConsoleOptions } from './console-request.ts';
import { html } from './html.ts';
import { crumbs, errorBox, page, SETTINGS_TRAIL } from './layout.ts';

function planPage(csrf: string, plan: Plan | undefined, saved: boolean, errors: string[]) {
  return html`${crumbs(...SETTINGS_TRAIL, { text: 'Store plan' })}<h1>Store plan</h1>
${saved && plan !== undefined ? html`<div class="notice" role="status">Saved. Within a few seconds custom apps may make ${customAppLimit(plan)} calls per 10 seconds.</div>` : ''}
${errorBox(errors)}
<form class="card" method="post" action="/admin/plan">
  <input type="hidden" name="_csrf" value="${csrf}">
  <div class="field"><label for="plan">Plan level</label>
    <p class="hint" id="plan_hint">Custom apps' calls per 10-second window follow the plan. Installed apps share ${INSTALLED_APPS_LIMIT} whatever the plan.</p>
    <select id="plan" name="plan" aria-describedby="plan_hint">${plans.map((level) => html`<option value="${level}" ${level === plan ? 'selected' : ''}>${planName(level)} — ${customAppLimit(level)} calls per 10 s</option>`)}</select></div>
  <div class="actions"><button type="submit">Save</button></div>
</form>`;
}

export function planRoutes(app: FastifyInstance, { ctx }: ConsoleOptions): void {
  app.get<{ Querystring: { saved?: string } }>('/admin/plan', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const csrf = sessionCsrf(ctx, request);
    const plan = await readPlan(ctx.db, session.admin.storeId);
    return sendPage(
      reply,
      200,
      page({
        title: 'Store plan',
        signedIn: { email: session.admin.email, csrf, section: 'plan' },
        body: planPage(csrf, plan, request.query.saved === '1', []),
      }),
    );
  });

  app.post('/admin/plan', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const chosen = formField(request, 'plan');
    if (!isPlan(chosen)) {
      const csrf = sessionCsrf(ctx, request);
      const plan = await readPlan(ctx.db, session.admin.storeId);
      return sendPage(
        reply,
        400,
        page({
          title: 'Store plan',
          signedIn: { email: session.admin.email, csrf, section: 'plan' },
          body: planPage(csrf, plan, false, [`Choose one of ${plans.map(planName).join(', ')}.`]),
        }),
      );
    }
    await setPlan(ctx.db, session.admin.storeId, chosen);
    return reply.redirect('/admin/plan?saved=1', 303);
  });
}
