// JSON bodies: Fastify's own parser (which refuses __proto__ and constructor.prototype keys), behind a limit
// on nesting. A body nested thousands of levels deep parses, but JSON.stringify (idempotency fingerprints,
// json fields) then overflows the stack; no record of the platform nests anywhere near the limit.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../model/api-error.ts';
import { nulPath, refuseNul } from './no-nul-text.ts';

export const MAX_BODY_DEPTH = 64;

/** True when arrays and objects in the JSON text nest deeper than `limit` (brackets inside strings do not count). */
export function nestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

export function jsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (nestsDeeper(text, MAX_BODY_DEPTH)) {
      done(new ApiError(400, `The body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`), undefined);
      return;
    }
    // NUL in JSON text is always the escape \u0000: only a body that has one is walked for where it is.
    if (!/\\u0000/i.test(text)) {
      void parse(request, text, done);
      return;
    }
    void parse(request, text, (error, body) => {
      const at = error ? undefined : nulPath(body);
      done(at === undefined ? error : refuseNul(at), at === undefined ? body : undefined);
    });
  });
}
