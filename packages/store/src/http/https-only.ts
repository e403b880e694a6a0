// HTTPS only: HSTS on every answer, and a request that did not arrive over TLS (directly, or per the
// X-Forwarded-Proto of a trusted proxy) is redirected, never served.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { urlHost } from './allowed-hosts.ts';

export const HSTS = 'max-age=31536000; includeSubDomains';

export interface HttpsOnlyOptions {
  /** The HTTPS port to send plain-HTTP clients to (known only once listening). */
  httpsPort: () => number;
}

/** Where a plain-HTTP request goes: the same host name (one the store answers to, allowed-hosts.ts) on the HTTPS port. */
export function httpsLocation(hostName: string, url: string, httpsPort: number): string {
  return `https://${urlHost({ name: hostName, port: httpsPort === 443 ? undefined : httpsPort })}${url.startsWith('/') ? url : '/'}`;
}

export const httpsOnly = fp(
  (app: FastifyInstance, options: HttpsOnlyOptions) => {
    app.addHook('onRequest', (request, reply, done) => {
      if (request.protocol === 'https') {
        void reply.header('strict-transport-security', HSTS);
        done();
        return;
      }
      void reply.redirect(httpsLocation(request.publicHost?.name ?? 'localhost', request.originalUrl, options.httpsPort()), 308);
    });
  },
  { name: 'https-only' },
);
