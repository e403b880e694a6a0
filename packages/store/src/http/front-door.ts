// `GET /`: where a newcomer lands. A browser gets a short page leading to the console and the API docs;
// an API client gets the same addresses as JSON.
import type { FastifyInstance } from 'fastify';

export interface FrontDoorOptions {
  apiPrefix: string;
}

export function frontDoor(app: FastifyInstance, { apiPrefix }: FrontDoorOptions): Promise<void> {
  const links = { api: apiPrefix, docs: `${apiPrefix}/docs`, openapi: `${apiPrefix}/openapi.json`, console: '/admin', oauth: '/api/oauth' };
  const json = JSON.stringify({ name: 'Store API', ...links });
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Store API</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}a{color:#0b57d0}li{margin:.5rem 0}code{background:#f4f4f4;padding:0 .2rem}</style>
</head><body>
<main>
<h1>Store API</h1>
<ul>
<li><a href="${links.console}">Admin console</a>: sign in, register apps, make API tokens.</li>
<li><a href="${links.docs}">API documentation</a>: every resource and query parameter, with “Try it out”.</li>
<li><a href="${links.openapi}">OpenAPI document</a> (OpenAPI 3.1, for code generators).</li>
</ul>
<p>The API itself is under <code>${links.api}</code>; each call sends its token in <code>X-AC-Auth-Token</code>.</p>
</main>
</body></html>`;
  app.get('/', { config: { notRateLimited: true } }, (request, reply) => {
    void reply.header('vary', 'accept').header('cache-control', 'no-cache');
    // Browsers ask for HTML first; API clients ask for JSON or anything.
    const wantsHtml = /\btext\/html\b/.test(String(request.headers.accept ?? ''));
    if (wantsHtml)
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
        .send(html);
    return reply.type('application/json; charset=utf-8').send(json);
  });
  return Promise.resolve();
}
