// The HTTP side: POST to any path, Content-Type application/json, a body size limit, and always
// HTTP 200 with a JSON-RPC body, whatever the client sent.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { registerHostGuard, type HostRules } from './allowed-hosts.ts';
import { errorResponse, type Dispatcher, type Response } from './envelope.ts';
import { invalidRequest, parseError } from './errors.ts';
import { serializeResponse } from './json-text.ts';

export interface HttpEndpointOptions {
  dispatcher: Dispatcher;
  /** Largest accepted request body in bytes. */
  bodyLimit: number;
  /** Which Host headers are answered; every request is checked (the web interface too). */
  hosts: HostRules;
  logger?: boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';

type Parsed = { kind: 'json'; value: unknown } | { kind: 'bad-json' } | { kind: 'not-json' };

declare module 'fastify' {
  interface FastifyRequest {
    parsed?: Parsed;
  }
}

export function buildHttpEndpoint(options: HttpEndpointOptions): FastifyInstance {
  const app = Fastify({ logger: options.logger ?? false, bodyLimit: options.bodyLimit, trustProxy: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, { kind: 'json', value: JSON.parse(body as string) } satisfies Parsed);
    } catch {
      done(null, { kind: 'bad-json' } satisfies Parsed);
    }
  });
  // Any other media type is read (within the limit) and answered as an invalid request.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, { kind: 'not-json' } satisfies Parsed));

  const send = (reply: FastifyReply, response: Response) => {
    const body = serializeResponse(response);
    if (typeof body === 'string') return reply.code(200).header('content-type', JSON_TYPE).send(body);
    // A kept answer's bytes, written as they are between the envelope's pieces (one writev, no joined copy).
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': body.reduce((length, piece) => length + piece.length, 0) });
    raw.cork();
    for (const piece of body) raw.write(piece);
    raw.end();
    raw.uncork();
    return reply;
  };

  registerHostGuard(app, options.hosts);

  app.post('/*', async (request: FastifyRequest, reply) => {
    const parsed = (request.body ?? { kind: 'not-json' }) as Parsed;
    if (parsed.kind === 'not-json')
      return send(reply, errorResponse(null, { ...invalidRequest, data: { reason: 'Content-Type must be application/json' } }));
    if (parsed.kind === 'bad-json') return send(reply, errorResponse(null, parseError));
    return send(reply, await options.dispatcher.handle(parsed.value, { remoteAddress: request.socket.remoteAddress ?? '' }));
  });

  app.setNotFoundHandler((_request, reply) => send(reply, errorResponse(null, { ...invalidRequest, data: { reason: 'Use HTTP POST' } })));

  app.setErrorHandler((error: { code?: string; statusCode?: number }, _request, reply) => {
    const reason =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? `The request body is larger than ${options.bodyLimit} bytes`
        : error.statusCode !== undefined && error.statusCode < 500
          ? 'The HTTP request could not be read'
          : 'The request could not be handled';
    return send(reply, errorResponse(null, { ...invalidRequest, data: { reason } }));
  });

  return app;
}
