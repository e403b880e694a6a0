// What console routes share: the signed-in admin, form fields, CSRF tokens and HTML replies.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/context.ts';
import { PRESESSION_COOKIE, SESSION_COOKIE, readCookie } from '../auth/cookies.ts';
import { csrfToken, type Session } from '../auth/sessions.ts';
import type { StoreDatabase } from '../db/schema.ts';
import type { TargetPolicy } from '../webhooks/target-policy.ts';
import { html } from './html.ts';
import { page } from './layout.ts';
import type { SigningKeys } from '../webhooks/standard-signature.ts';

declare module 'fastify' {
  interface FastifyRequest {
    adminSession: Session | undefined;
  }
}

export interface WebhookConsoleOptions {
  database: StoreDatabase;
  policy: TargetPolicy;
  /** The subscriptions' Standard Webhooks signing secrets, shown and rotated on a subscription's page. */
  keys: SigningKeys;
}

export interface ConsoleOptions {
  ctx: AuthContext;
  /** The webhook pages need the store's database and where webhooks may go; without them they are left out. */
  webhooks?: WebhookConsoleOptions;
}

export type FormBody = Record<string, string | string[] | undefined>;

export function formField(request: FastifyRequest, name: string): string {
  const value = (request.body as FormBody | undefined)?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

export function formList(request: FastifyRequest, name: string): string[] {
  const value = (request.body as FormBody | undefined)?.[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The cookie a form's CSRF token is bound to: the session once signed in, else the pre-session one. */
export function csrfCookie(request: FastifyRequest): string | undefined {
  return request.adminSession === undefined ? readCookie(request, PRESESSION_COOKIE) : readCookie(request, SESSION_COOKIE);
}

export function sessionCsrf(ctx: AuthContext, request: FastifyRequest): string {
  const cookie = csrfCookie(request);
  return cookie === undefined ? '' : csrfToken(ctx, cookie);
}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/** The console's answer for a path or record it does not have: an HTML page, as every console answer is. */
export function sendNotFound(reply: FastifyReply): FastifyReply {
  return sendPage(
    reply,
    404,
    page({
      title: 'Not found',
      narrow: true,
      body: html`<h1>Not found</h1><div class="card"><p>The console has no such page or record.</p><p><a href="/admin">Back to the console</a></p></div>`,
    }),
  );
}

// A stand-in for the console's own origin: `next` must resolve to the same one.
const OWN_ORIGIN = 'https://console.invalid';

/**
 * Where to go after sign-in: only a path on this site, so the form cannot bounce people elsewhere. `next` is
 * resolved the way a browser would (which drops tabs and newlines and reads `\` as `/`) and kept only if the
 * origin stays this site's; the path comes back percent-encoded, so it always fits in a Location header.
 */
export function safeNext(next: string | undefined, fallback = '/admin/apps'): string {
  if (next === undefined || next === '') return fallback;
  let url: URL;
  try {
    url = new URL(next, OWN_ORIGIN);
  } catch {
    return fallback;
  }
  // `//host` as a path would itself read as another origin.
  if (url.origin !== OWN_ORIGIN || url.pathname.startsWith('//')) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

const MAX_NEXT = 2048;

/**
 * The signed-in admin, or undefined after answering: a redirect to sign in (coming back here), or
 * 403 when the page manages store settings and the admin's access does not include them.
 */
export function requireAdmin(
  request: FastifyRequest,
  reply: FastifyReply,
  need: 'signed-in' | 'settings' = 'settings',
): Session | undefined {
  const session = request.adminSession;
  if (session === undefined) {
    // A query of kilobytes, encoded once more into next=, would make a Location header clients refuse to read.
    const back =
      request.method !== 'GET' ? '/admin' : request.url.length <= MAX_NEXT ? request.url : (request.url.split('?')[0] ?? '/admin');
    void reply.redirect(`/admin/sign-in?next=${encodeURIComponent(back)}`, 303);
    return undefined;
  }
  if (need === 'settings' && !session.admin.access.includes('settings')) {
    void sendPage(
      reply,
      403,
      page({
        title: 'Not allowed',
        narrow: true,
        body: html`<h1>Not allowed</h1><div class="card"><p>Your admin account cannot manage store settings.</p><p><a href="/admin">Back to the console</a></p></div>`,
      }),
    );
    return undefined;
  }
  return session;
}
