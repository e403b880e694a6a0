// Sign-in and sign-out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { signIn } from '../auth/admins.ts';
import { PRESESSION_COOKIE, SESSION_COOKIE, clearCookie, readCookie, setCookie } from '../auth/cookies.ts';
import { csrfToken, endSession, startSession } from '../auth/sessions.ts';
import { newSecret } from '../auth/token-secret.ts';
import { formField, safeNext, sendPage, type ConsoleOptions } from './console-request.ts';
import { html } from './html.ts';
import { errorBox, page } from './layout.ts';

function signInPage(input: { csrf: string; next: string; email: string; errors: string[] }): string {
  return page({
    title: 'Sign in',
    narrow: true,
    body: html`<h1>Sign in to the store admin</h1>
${errorBox(input.errors)}
<form class="card" method="post" action="/admin/sign-in">
  <input type="hidden" name="_csrf" value="${input.csrf}">
  <input type="hidden" name="next" value="${input.next}">
  <div class="field"><label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${input.email}"></div>
  <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required></div>
  <div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  });
}

export function signInRoutes(app: FastifyInstance, { ctx }: ConsoleOptions): void {
  /** The pre-session cookie the sign-in form's CSRF token is bound to, made on first visit. */
  function presession(request: FastifyRequest, reply: FastifyReply): string {
    const existing = readCookie(request, PRESESSION_COOKIE);
    if (existing !== undefined) return existing;
    const value = newSecret();
    setCookie(reply, PRESESSION_COOKIE, value, 3600);
    return value;
  }

  app.get<{ Querystring: { next?: string } }>('/admin/sign-in', (request, reply) => {
    const next = safeNext(request.query.next);
    if (request.adminSession !== undefined) return reply.redirect(next, 303);
    return sendPage(reply, 200, signInPage({ csrf: csrfToken(ctx, presession(request, reply)), next, email: '', errors: [] }));
  });

  app.post('/admin/sign-in', async (request, reply) => {
    const email = formField(request, 'email');
    const next = safeNext(formField(request, 'next'));
    const result = await signIn(ctx, email, formField(request, 'password'), request.ip);
    if (!result.ok) {
      const csrf = csrfToken(ctx, presession(request, reply));
      if (result.reason === 'locked') {
        const minutes = Math.max(1, Math.ceil((result.until - ctx.now()) / 60_000));
        return sendPage(
          reply,
          429,
          signInPage({
            csrf,
            next,
            email,
            errors: [`Too many failed sign-ins to this account. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`],
          }),
        );
      }
      return sendPage(reply, 401, signInPage({ csrf, next, email, errors: ['The email or password is not right.'] }));
    }
    const session = await startSession(ctx, result.admin);
    setCookie(reply, SESSION_COOKIE, session.cookie, Math.floor(ctx.lifetimes.sessionMs / 1000));
    clearCookie(reply, PRESESSION_COOKIE);
    return reply.redirect(next, 303);
  });

  app.post('/admin/sign-out', async (request, reply) => {
    const cookie = readCookie(request, SESSION_COOKIE);
    if (cookie !== undefined) await endSession(ctx, cookie);
    clearCookie(reply, SESSION_COOKIE);
    return reply.redirect('/admin/sign-in', 303);
  });
}
