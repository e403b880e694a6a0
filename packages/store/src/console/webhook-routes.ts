// Settings › Webhooks: the store's subscriptions, a form for a new one, and each one's delivery log
// with a button to send an event again.
import type { FastifyInstance } from 'fastify';
import { listApps, type App } from '../auth/apps.ts';
import type { Row } from '../db/schema.ts';
import { recordsOf, type Records } from '../records/records.ts';
import {
  attemptsOf,
  recentDeliveries,
  deliveryCounts,
  sendAgain,
  sendTestEvent,
  type AttemptEntry,
  type DeliveryEntry,
  type DeliveryState,
} from '../webhooks/delivery-log.ts';
import { rotateSigningSecret, signingAnswer, type SigningSecretAnswer } from '../webhooks/signing-routes.ts';
import { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS } from '../webhooks/standard-signature.ts';
import { cacheLengths, eventNames, eventTypes, failureTypes } from '../model/event-types.ts';
import { subscriptionProblems } from '../webhooks/subscription-check.ts';
import { webhooks } from '../model/declarations/webhooks.ts';
import {
  formField,
  requireAdmin,
  sendNotFound,
  sendPage,
  sessionCsrf,
  type ConsoleOptions,
  type WebhookConsoleOptions,
} from './console-request.ts';
import { parseRecordId } from '../http/record-id.ts';
import { html, type Markup } from './html.ts';
import { crumbs, errorBox, page, SETTINGS_TRAIL, type Crumb } from './layout.ts';

const LIST: Crumb = { text: 'Webhooks', href: '/admin/webhooks' };
const FORM_FIELDS = ['event_type', 'url', 'failure_type', 'fallback_url', 'cache_length', 'app'] as const;
type FormValues = Record<(typeof FORM_FIELDS)[number], string>;
const emptyForm: FormValues = {
  event_type: 'NewOrder',
  url: '',
  failure_type: 'Ignore',
  fallback_url: '',
  cache_length: 'NoCache',
  app: '',
};

const stateText: Record<DeliveryState, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Gave up' };
const badgeClass: Record<DeliveryState, string> = { pending: 'pending', delivered: 'active', failed: 'revoked' };

const text = (value: unknown, fallback = '') => (typeof value === 'string' ? value : fallback);
const when = (iso: string | null) => (iso === null ? '' : `${iso.slice(0, 19).replace('T', ' ')} UTC`);

function options<T extends string>(values: readonly T[], chosen: string, label: (value: T) => string = (v) => v): Markup[] {
  return values.map((value) => html`<option value="${value}" ${value === chosen ? 'selected' : ''}>${label(value)}</option>`);
}

function newForm(csrf: string, apps: App[], values: FormValues, errors: string[]): Markup {
  if (apps.length === 0) {
    return html`<h2 id="new">New subscription</h2><div class="card"><p>Deliveries are signed with an app's App Secret, so register an app first under <a href="/admin/apps">API Apps &amp; Integrations</a>.</p></div>`;
  }
  const sent = eventNames.filter((name) => !eventTypes[name].replies);
  const asked = eventNames.filter((name) => eventTypes[name].replies);
  return html`<h2 id="new">New subscription</h2>${errorBox(errors)}
<form class="card" method="post" action="/admin/webhooks">
  <input type="hidden" name="_csrf" value="${csrf}">
  <div class="field"><label for="event_type">Event</label>
    <select id="event_type" name="event_type">
      <optgroup label="Sent after a change">${options(sent, values.event_type, (n) => `${n} — ${eventTypes[n].description}`)}</optgroup>
      <optgroup label="Asked while a request waits (3-second limit)">${options(asked, values.event_type, (n) => `${n} — ${eventTypes[n].description}`)}</optgroup>
    </select></div>
  <div class="field"><label for="url">URL</label>
    <p class="hint" id="url_hint">An https address. Each request is signed with the chosen app's App Secret (X-AC-Signature).</p>
    <input id="url" name="url" type="url" required maxlength="2000" aria-describedby="url_hint" value="${values.url}"></div>
  <div class="field"><label for="app">Signed with the secret of</label>
    <select id="app" name="app">${apps.map((a) => html`<option value="${a.clientId}" ${a.clientId === values.app ? 'selected' : ''}>${a.name}</option>`)}</select></div>
  <div class="field"><label for="failure_type">When the URL fails</label>
    <select id="failure_type" name="failure_type">${options(failureTypes, values.failure_type, (v) => ({ Ignore: 'Ignore — carry on', Error: 'Error — show an error (events that expect a reply)', Fallback: 'Fallback — call the fallback URL' })[v] ?? v)}</select></div>
  <div class="field"><label for="fallback_url">Fallback URL</label>
    <input id="fallback_url" name="fallback_url" type="url" maxlength="2000" value="${values.fallback_url}"></div>
  <div class="field"><label for="cache_length">Keep replies</label>
    <select id="cache_length" name="cache_length">${options(Object.keys(cacheLengths) as (keyof typeof cacheLengths)[], values.cache_length, (v) => ({ Short: 'Short — 5 minutes', Long: 'Long — 30 minutes', NoCache: 'Do not keep' })[v] ?? v)}</select></div>
  <div class="actions"><button type="submit">Save</button></div>
</form>`;
}

function listPage(csrf: string, rows: Row[], apps: App[], counts: Awaited<ReturnType<typeof deliveryCounts>>, form: Markup): Markup {
  const appName = (clientId: unknown) => apps.find((a) => a.clientId === clientId)?.name ?? html`<span class="muted">deleted app</span>`;
  return html`${crumbs(...SETTINGS_TRAIL, LIST)}<h1>Webhooks</h1>
${
  rows.length === 0
    ? html`<div class="card"><p>No subscriptions yet. Add one below, or through <code>POST /api/v1/webhooks</code>.</p></div>`
    : html`<table class="stack"><caption class="skip">Webhook subscriptions</caption>
<thead><tr><th scope="col">Event</th><th scope="col">URL</th><th scope="col">On failure</th><th scope="col">App</th><th scope="col">Deliveries</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
<tbody>${rows.map((row) => {
        const id = Number(row.id);
        const of = counts.get(id) ?? { pending: 0, delivered: 0, failed: 0 };
        return html`<tr><td data-label="Event"><a href="/admin/webhooks/${id}">${String(row.event_type)}</a></td><td data-label="URL"><code>${String(row.url)}</code>${typeof row.fallback_url === 'string' && row.fallback_url !== '' ? html`<br><span class="muted">fallback</span> <code>${row.fallback_url}</code>` : ''}</td>
<td data-label="On failure">${text(row.failure_type, 'Ignore')}${typeof row.suspended_at === 'string' ? html`<br><span class="badge revoked" title="${text(row.suspended_reason)}">Suspended</span>` : ''}</td><td data-label="App">${appName(row.app_client_id)}</td>
<td data-label="Deliveries"><a href="/admin/webhooks/${id}">${of.delivered} delivered, ${of.pending} pending, ${of.failed} given up</a></td>
<td><form method="post" action="/admin/webhooks/${id}/delete"><input type="hidden" name="_csrf" value="${csrf}"><button class="danger" type="submit" aria-label="Delete the ${String(row.event_type)} subscription to ${String(row.url)}">Delete</button></form></td></tr>`;
      })}</tbody></table>`
}
${form}`;
}

/** Every attempt of a delivery: when, where to, the HTTP status, how long it took, and the answer's first bytes. */
function attemptList(attempts: readonly AttemptEntry[]): Markup | string {
  if (attempts.length === 0) return '';
  return html`<details><summary>${attempts.length} attempt${attempts.length === 1 ? '' : 's'}</summary><ol class="attempts">${attempts.map(
    (a) =>
      html`<li>${when(a.attemptedAt)} to the ${a.sentTo === 'fallback_url' ? 'fallback URL' : 'URL'}: ${a.status === null ? html`<span class="muted">no HTTP status</span>` : html`HTTP ${a.status}`}, ${a.latencyMs} ms${a.error === null ? '' : html`, ${a.error}`}${a.replyHead === null || a.replyHead === '' ? '' : html`<br><span class="muted">answer</span> <code>${a.replyHead}</code>`}</li>`,
  )}</ol></details>`;
}

function deliveryRow(csrf: string, subscriptionId: number, d: DeliveryEntry, attempts: readonly AttemptEntry[]): Markup {
  const outcome =
    d.state === 'delivered'
      ? html`${when(d.deliveredAt)}${d.deliveredTo === 'fallback_url' ? html` <span class="muted">(to the fallback URL)</span>` : ''}`
      : html`${d.lastError === null ? html`<span class="muted">not tried yet</span>` : d.lastError}${d.state === 'pending' ? html`<br><span class="muted">next try ${when(d.nextAttemptAt)}</span>` : ''}`;
  return html`<tr><td data-label="Delivery">${d.id}${d.resentFrom === null ? '' : html`<br><span class="muted">again of ${d.resentFrom}</span>`}</td><td data-label="Event">${d.eventType}</td><td data-label="Written">${when(d.createdAt)}</td>
<td data-label="Status"><span class="badge ${badgeClass[d.state]}">${stateText[d.state]}</span></td><td data-label="Attempts">${d.attempts}${attemptList(attempts)}</td><td data-label="HTTP">${d.lastStatus ?? ''}</td><td data-label="Outcome">${outcome}</td>
<td><form method="post" action="/admin/webhooks/${subscriptionId}/deliveries/${d.id}/resend"><input type="hidden" name="_csrf" value="${csrf}"><button class="secondary" type="submit" aria-label="Send delivery ${d.id} again">Send again</button></form></td></tr>`;
}

/** Why a subscription is no longer asked (its reply hook kept failing), and the button that asks it again. */
function suspension(csrf: string, row: Row): Markup | string {
  if (typeof row.suspended_at !== 'string') return '';
  return html`<div class="error" role="alert"><p><strong>Suspended</strong> since ${when(row.suspended_at)}: ${text(row.suspended_reason)}. It is not asked until resumed.</p>
<form method="post" action="/admin/webhooks/${Number(row.id)}/resume"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Resume</button></form></div>`;
}

/** The Standard Webhooks signing secret, and a rotation that keeps the old one signing for a while. */
function signingCard(csrf: string, id: number, signing: SigningSecretAnswer): Markup {
  return html`<h2>Signing secret</h2><div class="card">
<p class="hint">Besides X-AC-Signature (the app's App Secret), every delivery carries the Standard Webhooks headers <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code>, signed with this secret.</p>
<dl class="facts"><dt>Secret</dt><dd><code>${signing.secret}</code></dd>
<dt>Previous secret</dt><dd>${signing.previous_secret_expires_at === null ? html`<span class="muted">none: only the secret above signs</span>` : html`signs too until ${when(signing.previous_secret_expires_at)}`}</dd></dl>
<form method="post" action="/admin/webhooks/${id}/rotate"><input type="hidden" name="_csrf" value="${csrf}">
<div class="field"><label for="overlap">Keep the current secret signing for</label>
<select id="overlap" name="overlap">${OVERLAPS.map(([seconds, label]) => html`<option value="${String(seconds)}" ${seconds === DEFAULT_OVERLAP_SECONDS ? 'selected' : ''}>${label}</option>`)}</select></div>
<div class="actions"><button type="submit" class="secondary">Rotate the secret</button></div></form></div>`;
}

const OVERLAPS: readonly (readonly [number, string])[] = [
  [0, 'no overlap (the old secret stops at once)'],
  [3600, 'an hour'],
  [DEFAULT_OVERLAP_SECONDS, 'a day'],
  [MAX_OVERLAP_SECONDS, 'a week'],
];

function logPage(
  csrf: string,
  row: Row,
  deliveries: DeliveryEntry[],
  attempts: Map<number, AttemptEntry[]>,
  signing: SigningSecretAnswer,
  notice: string | undefined,
): Markup {
  const id = Number(row.id);
  return html`${crumbs(...SETTINGS_TRAIL, LIST, { text: String(row.event_type) })}<h1>${String(row.event_type)} → <code>${String(row.url)}</code></h1>
${notice === undefined ? '' : html`<div class="notice" role="status">${notice}</div>`}
${suspension(csrf, row)}
<div class="card"><dl class="facts">
  <dt>On failure</dt><dd>${text(row.failure_type, 'Ignore')}</dd>
  <dt>Fallback URL</dt><dd>${typeof row.fallback_url === 'string' && row.fallback_url !== '' ? html`<code>${row.fallback_url}</code>` : html`<span class="muted">none</span>`}</dd>
  <dt>Keep replies</dt><dd>${text(row.cache_length, 'NoCache')}</dd>
  <dt>Signed by App ID</dt><dd><code>${text(row.app_client_id)}</code></dd>
</dl></div>
${signingCard(csrf, id, signing)}
<h2>Delivery log</h2>
<form method="post" action="/admin/webhooks/${id}/test"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit" class="secondary">Send a test event</button></form>
${
  deliveries.length === 0
    ? html`<div class="card"><p>Nothing sent yet.</p></div>`
    : html`<table class="stack"><caption class="skip">Deliveries, newest first</caption>
<thead><tr><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">Written</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">HTTP</th><th scope="col">Delivered, or last error</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
<tbody>${deliveries.map((d) => deliveryRow(csrf, id, d, attempts.get(d.id) ?? []))}</tbody></table>`
}
<p><a href="/admin/webhooks">All subscriptions</a></p>`;
}

const signedIn = (email: string, csrf: string) => ({ email, csrf, section: 'webhooks' as const });
const idOf = (text: string) => parseRecordId(text) ?? 0;

/** What the webhook pages share. */
interface WebhookPages {
  readonly options: WebhookConsoleOptions;
  readonly subscriptions: Records;
  /** The stored row, with what the API does not show (a suspension and its reason). */
  readonly findSubscription: (id: number) => Promise<Row | undefined>;
}

export function webhookRoutes(
  app: FastifyInstance,
  { ctx, webhooks: options }: ConsoleOptions & { webhooks: WebhookConsoleOptions },
): void {
  const { database, policy } = options;
  const subscriptions = recordsOf(database, webhooks);
  const findSubscription = (id: number) =>
    id === 0 ? Promise.resolve(undefined) : database.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();

  async function showList(
    request: Parameters<typeof sessionCsrf>[1],
    reply: Parameters<typeof sendPage>[0],
    storeId: number,
    email: string,
    values: FormValues,
    errors: string[],
  ) {
    const csrf = sessionCsrf(ctx, request);
    const apps = await listApps(ctx, storeId);
    const rows = await database.db.selectFrom('webhooks').selectAll().orderBy('id').execute();
    const counts = await deliveryCounts(database);
    const form = newForm(csrf, apps, { ...values, app: values.app === '' ? (apps[0]?.clientId ?? '') : values.app }, errors);
    return sendPage(
      reply,
      errors.length > 0 ? 400 : 200,
      page({ title: 'Webhooks', signedIn: signedIn(email, csrf), body: listPage(csrf, rows, apps, counts, form) }),
    );
  }

  app.get('/admin/webhooks', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    return showList(request, reply, session.admin.storeId, session.admin.email, emptyForm, []);
  });

  app.post('/admin/webhooks', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const values = Object.fromEntries(FORM_FIELDS.map((name) => [name, formField(request, name).trim()])) as FormValues;
    const apps = await listApps(ctx, session.admin.storeId);
    const subscription: Row = {
      event_type: values.event_type,
      url: values.url,
      failure_type: values.failure_type,
      fallback_url: values.fallback_url === '' ? null : values.fallback_url,
      cache_length: values.cache_length,
      store_id: session.admin.storeId,
      app_client_id: values.app,
    };
    const errors = await subscriptionProblems(policy, subscription, true);
    if (!apps.some((a) => a.clientId === values.app)) errors.push('app: choose one of the registered apps');
    if (values.url.length > 2000 || values.fallback_url.length > 2000) errors.push('url: must have at most 2000 characters');
    if (errors.length > 0) return showList(request, reply, session.admin.storeId, session.admin.email, values, errors);
    await subscriptions.create(subscription);
    return reply.redirect('/admin/webhooks', 303);
  });

  app.get<{ Params: { id: string }; Querystring: { resent?: string; tested?: string; rotated?: string } }>(
    '/admin/webhooks/:id',
    async (request, reply) => {
      const session = requireAdmin(request, reply);
      if (session === undefined) return reply;
      const row = await findSubscription(idOf(request.params.id));
      if (row === undefined) return sendNotFound(reply);
      const csrf = sessionCsrf(ctx, request);
      const queued = (value: string | undefined) => (value !== undefined && /^\d+$/.test(value) ? value : undefined);
      const resent = queued(request.query.resent);
      const tested = queued(request.query.tested);
      const notice =
        resent !== undefined
          ? `Queued again as delivery ${resent}.`
          : tested !== undefined
            ? `Test event queued as delivery ${tested}.`
            : request.query.rotated === '1'
              ? 'A new secret signs from now on.'
              : undefined;
      const deliveries = await recentDeliveries(database, Number(row.id));
      const attempts = await attemptsOf(
        database,
        deliveries.map((d) => d.id),
      );
      const body = logPage(csrf, row, deliveries, attempts, signingAnswer(options.keys, row), notice);
      return sendPage(
        reply,
        200,
        page({ title: `Webhook ${String(row.event_type)}`, signedIn: signedIn(session.admin.email, csrf), body }),
      );
    },
  );

  subscriptionActions(app, { options, subscriptions, findSubscription });
}

/** What an admin does to one subscription: send a delivery again, send a test event, rotate its secret, resume it, delete it. */
function subscriptionActions(app: FastifyInstance, { options, subscriptions, findSubscription }: WebhookPages): void {
  const { database } = options;
  app.post<{ Params: { id: string; deliveryId: string } }>('/admin/webhooks/:id/deliveries/:deliveryId/resend', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const id = idOf(request.params.id);
    const made = id === 0 ? undefined : await sendAgain(database, id, idOf(request.params.deliveryId));
    if (made === undefined) return sendNotFound(reply);
    return reply.redirect(`/admin/webhooks/${id}?resent=${made}`, 303);
  });

  app.post<{ Params: { id: string } }>('/admin/webhooks/:id/test', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const row = await findSubscription(idOf(request.params.id));
    if (row === undefined) return sendNotFound(reply);
    return reply.redirect(`/admin/webhooks/${Number(row.id)}?tested=${await sendTestEvent(database, row)}`, 303);
  });

  app.post<{ Params: { id: string } }>('/admin/webhooks/:id/rotate', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const row = await findSubscription(idOf(request.params.id));
    if (row === undefined) return sendNotFound(reply);
    const overlap = Number(formField(request, 'overlap'));
    const seconds = Number.isInteger(overlap) && overlap >= 0 && overlap <= MAX_OVERLAP_SECONDS ? overlap : DEFAULT_OVERLAP_SECONDS;
    await rotateSigningSecret(database, row, seconds);
    return reply.redirect(`/admin/webhooks/${Number(row.id)}?rotated=1`, 303);
  });

  app.post<{ Params: { id: string } }>('/admin/webhooks/:id/resume', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const id = idOf(request.params.id);
    if (id === 0 || (await findSubscription(id)) === undefined) return sendNotFound(reply);
    await database.db
      .updateTable('webhooks')
      .set({ suspended_at: null, suspended_reason: null, reply_failures: 0 })
      .where('id', '=', id)
      .execute();
    return reply.redirect(`/admin/webhooks/${id}`, 303);
  });

  app.post<{ Params: { id: string } }>('/admin/webhooks/:id/delete', async (request, reply) => {
    const session = requireAdmin(request, reply);
    if (session === undefined) return reply;
    const id = idOf(request.params.id);
    if (id === 0 || !(await subscriptions.remove(id))) return sendNotFound(reply);
    return reply.redirect('/admin/webhooks', 303);
  });
}
