// The DNS-rebinding guard: a page on a hostile name that resolves to this machine reaches the service
// with its own name in Host, and a page of another site calls it with its origin in Origin. Both are
// refused, on the JSON-RPC endpoint and the web interface alike; IP literals cannot be rebound.
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorResponse } from './envelope.ts';
import { invalidRequest } from './errors.ts';

export interface HostRules {
  /** The address the service listens on. */
  listenHost: string;
  /** Names configured in RPCAPI.allowed_hosts. */
  names: readonly string[];
}

const UNSPECIFIED = new Set(['0.0.0.0', '::', '']);

/** The host name of a Host header (`name`, `name:port`, `[v6]:port`), lower case, without a final dot. */
export function hostOfHeader(header: string): string | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/.exec(header.trim());
  if (match === null) return undefined;
  return (match[1] ?? match[2] ?? '').toLowerCase().replace(/\.$/, '');
}

/** Whether a request with this Host header is one the service answers. */
export function isAllowedHost(header: string | undefined, rules: HostRules): boolean {
  if (header === undefined) return false;
  const host = hostOfHeader(header);
  if (host === undefined || host === '') return false;
  const listen = rules.listenHost.toLowerCase();
  if (host === listen || rules.names.includes(host)) return true;
  // On loopback, `localhost` and the loopback addresses are the machine itself: a page cannot rebind them.
  const onLoopback = isLoopbackLiteral(listen) || listen === 'localhost' || UNSPECIFIED.has(listen);
  if (onLoopback && (host === 'localhost' || isLoopbackLiteral(host))) return true;
  // Listening on every address: any address of the machine may be asked for, but never a name.
  return UNSPECIFIED.has(listen) && isIP(host) !== 0;
}

/** A browser's Origin must be this very service (scheme http or https, the same host and port as Host). */
export function isAllowedOrigin(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true;
  if (hostHeader === undefined) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === new URL(`http://${hostHeader}`).host;
  } catch {
    return false;
  }
}

function isLoopbackLiteral(host: string): boolean {
  return host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Refuses, before the body is read, every request with a Host or Origin the rules do not allow: HTTP 403,
 * a JSON-RPC error for a POST, a line of text otherwise. A rebinding page gets nothing, not even a parse error.
 */
export function registerHostGuard(app: FastifyInstance, rules: HostRules): void {
  // Clients send the same Host again and again; its verdict is remembered (a bounded set, so a flood of
  // made-up names cannot grow it).
  const allowedHeaders = new Set<string>();
  app.addHook('onRequest', (request, reply, done) => {
    const host = request.headers.host;
    const origin = request.headers.origin;
    let reason: string | undefined;
    if (host === undefined || !(allowedHeaders.has(host) || remember(allowedHeaders, host, isAllowedHost(host, rules)))) {
      reason = 'This service does not answer to that Host name';
    } else if (origin !== undefined && !isAllowedOrigin(origin, host)) {
      reason = 'Requests from other web origins are refused';
    }
    if (reason === undefined) {
      done();
      return;
    }
    reply.header('connection', 'close');
    if (request.method === 'POST') {
      void reply
        .code(403)
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify(errorResponse(null, { ...invalidRequest, data: { reason } })));
    } else {
      void reply.code(403).type('text/plain; charset=utf-8').send(`${reason}.\n`);
    }
  });
}

function remember(set: Set<string>, header: string, allowed: boolean): boolean {
  if (allowed && set.size < 64) set.add(header);
  return allowed;
}
