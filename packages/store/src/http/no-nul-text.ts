// PostgreSQL's text cannot hold U+0000 and fails the whole statement when given it, so no API request may
// carry it: not in the path, a query parameter or a JSON body. Refusing it here, before any route, keeps
// every route (and every database) answering the same 400 instead of each one meeting it on its own. JSON bodies
// are checked where they are parsed (json-body.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../model/api-error.ts';

/** The dotted name of the first string (or key) in `value` that holds NUL, or undefined. */
export function nulPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path || 'the body' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const here = path === '' ? key : `${path}.${key}`;
    if (key.includes('\0')) return here;
    const found = nulPath(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function refuseNul(name: string): ApiError {
  return new ApiError(400, `${name}: text cannot hold the NUL character`);
}

export const noNulText = fp(
  (app: FastifyInstance, options: { apiPrefix: string }) => {
    app.addHook('onRequest', (request, _reply, done) => {
      const url = request.url;
      if (!url.startsWith(options.apiPrefix) || !/%00|\0/i.test(url)) {
        done();
        return;
      }
      const queryAt = url.indexOf('?');
      const path = queryAt === -1 ? url : url.slice(0, queryAt);
      if (/%00|\0/i.test(path)) {
        done(refuseNul('the path'));
        return;
      }
      // The parsed query is an object of the parser's own kind, with text (or lists of text) for values.
      const query = Object.entries(request.query as Record<string, unknown>);
      const name = query.find(([key, value]) => key.includes('\0') || nulPath(value) !== undefined)?.[0];
      done(refuseNul(name ?? 'the query'));
    });
  },
  { name: 'no-nul-text' },
);
