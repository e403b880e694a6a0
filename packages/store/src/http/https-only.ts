// HTTPS only: HSTS on every answer, and a request that did not arrive over TLS (directly, or per the
// X-Forwarded-Proto of a trusted proxy) is redirected, never served.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export const HSTS = 'max-age=31536000; includeSubDomains';

export interface HttpsOnlyOptions {
  /** The HTTPS port to send plain-HTTP clients to (known only once listening). */
  httpsPort: () => number;
}

export function httpsLocation(hostHeader: string | undefined, url: string, httpsPort: number): string {
  const hostname = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d+)?$/.exec(hostHeader ?? '')?.[1] ?? 'localhost';
  return `https://${hostname}${httpsPort === 443 ? '' : `:${httpsPort}`}${url.startsWith('/') ? url : '/'}`;
}

export const httpsOnly = fp(
  (app: FastifyInstance, options: HttpsOnlyOptions) => {
    app.addHook('onRequest', (request, reply, done) => {
      if (request.protocol === 'https') {
        void reply.header('strict-transport-security', HSTS);
        done();
        return;
      }
      void reply.redirect(httpsLocation(request.headers.host, request.originalUrl, options.httpsPort()), 308);
    });
  },
  { name: 'https-only' },
);
