// The admin console: server-rendered pages under /admin, plus the OAuth grant page at /api/oauth.
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance } from 'fastify';
import { SESSION_COOKIE, readCookie } from '../auth/cookies.ts';
import { csrfMatches, findSession } from '../auth/sessions.ts';
import { accountRoutes } from './account-routes.ts';
import { adminRoutes } from './admin-routes.ts';
import { appRoutes } from './app-routes.ts';
import { csrfCookie, sendNotFound, sendPage, type ConsoleOptions } from './console-request.ts';
import { grantRoutes } from './grant-routes.ts';
import { homeRoutes } from './home-routes.ts';
import { html } from './html.ts';
import { consoleCss, consoleJs, page } from './layout.ts';
import type { RouteFlags } from '../model/route-config.ts';
import { planRoutes } from './plan-routes.ts';
import { signInRoutes } from './sign-in-routes.ts';
import { webhookRoutes } from './webhook-routes.ts';
import { isBusyDatabase } from '../db/busy-database.ts';
import { isUnavailableDatabase } from '../db/unavailable-database.ts';

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function messagePage(title: string, text: string): string {
  return page({
    title,
    narrow: true,
    body: html`<h1>${title}</h1><div class="card"><p>${text}</p><p><a href="/admin">Back to the console</a></p></div>`,
  });
}

/** Registered without fastify-plugin: form parsing and the HTML error pages stay inside the console. */
export async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const { ctx } = options;
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  app.decorateRequest('adminSession', undefined);
  // Console pages are not API calls: the API's per-plan windows must not count them (see limits/rate-limit.ts).
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, notRateLimited: true } satisfies RouteFlags;
  });

  app.addHook('onRequest', async (request, reply) => {
    void reply.headers(SECURITY_HEADERS);
    const cookie = readCookie(request, SESSION_COOKIE);
    request.adminSession = cookie === undefined ? undefined : await findSession(ctx, cookie);
  });

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    const cookie = csrfCookie(request);
    const given = (request.body as Record<string, unknown> | undefined)?._csrf;
    if (cookie === undefined || !csrfMatches(ctx, cookie, given)) {
      return sendPage(
        reply,
        403,
        messagePage('Form expired', 'This form was not sent from a current console page. Reload the page and try again.'),
      );
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isUnavailableDatabase(error) || isBusyDatabase(error)) {
      request.log.warn({ err: error }, 'console request met the database unavailable');
      void reply.header('retry-after', '2');
      return sendPage(
        reply,
        503,
        messagePage('Try again in a moment', 'The store cannot reach its database right now. Reload this page in a moment.'),
      );
    }
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'console request failed');
    return sendPage(
      reply,
      status,
      messagePage(
        status === 500 ? 'Something went wrong' : 'Bad request',
        status === 500 ? 'The console failed to handle this request; it has been logged.' : 'The console could not read this request.',
      ),
    );
  });

  // Every path under /admin is the console's, matched or not: an unknown one (`/admin/apps/3/tokens/%2e%2e/revoke`,
  // which a URL parser turns into `/admin/apps/3/revoke`) gets an HTML page, and so does its body's error (413).
  await app.register(
    (admin: FastifyInstance) => {
      admin.setNotFoundHandler((_request, reply) => sendNotFound(reply));
    },
    { prefix: '/admin' },
  );

  app.get('/admin/console.css', (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(consoleCss),
  );
  app.get('/admin/console.js', (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(consoleJs),
  );

  await app.register(signInRoutes, options);
  await app.register(homeRoutes, options);
  await app.register(appRoutes, options);
  await app.register(adminRoutes, options);
  await app.register(accountRoutes, options);
  await app.register(planRoutes, options);
  await app.register(grantRoutes, options);
  const { webhooks } = options;
  if (webhooks !== undefined) await app.register(webhookRoutes, { ...options, webhooks });
}
