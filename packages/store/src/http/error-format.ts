// Every error leaves as {status_code, message, details}. Client faults explain themselves; server faults
// are logged and answered with a fixed text, so SQL and stack traces never reach the wire.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isBusyDatabase } from '../db/busy-database.ts';
import { isUnavailableDatabase } from '../db/unavailable-database.ts';
import { ApiError, errorBody } from '../model/api-error.ts';
import { HSTS } from './https-only.ts';

/** Each problem a JSON Schema validation found, named by its path in the body (`items.1.quantity: is required`). */
export function validationProblems(validation: NonNullable<FastifyError['validation']>): string[] {
  return (
    validation
      // "must match then schema" only repeats the required fields reported beside it.
      .filter((issue) => issue.keyword !== 'if')
      .map((issue) => {
        const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        const within = path === '' ? '' : `${path}.`;
        if (issue.keyword === 'additionalProperties') {
          const extra = (issue.params as { additionalProperty?: string }).additionalProperty ?? '';
          return `${within}${extra}: is not a writable field`;
        }
        if (issue.keyword === 'required')
          return `${within}${(issue.params as { missingProperty?: string }).missingProperty ?? ''}: is required`;
        return `${path === '' ? 'body' : path}: ${issue.message ?? 'is invalid'}`;
      })
  );
}

function clientDetails(error: FastifyError): string {
  if (error.validation !== undefined) return validationProblems(error.validation).join('; ');
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The body is not valid JSON';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The body is larger than this API accepts';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Send the body as application/json';
    default:
      return error.message;
  }
}

export const errorFormat = fp(
  (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      void reply.header('cache-control', 'no-store');
      if (error instanceof ApiError) {
        return reply.code(error.statusCode).headers(error.headers).send(errorBody(error.statusCode, error.message));
      }
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) return reply.code(status).send(errorBody(status, clientDetails(error)));
      if (isBusyDatabase(error)) {
        request.log.warn({ err: error }, 'database busy');
        return reply.code(503).header('retry-after', '1').send(errorBody(503, 'The store is busy; retry in a moment'));
      }
      if (isUnavailableDatabase(error)) {
        request.log.warn({ err: error }, 'database unavailable');
        return reply
          .code(503)
          .header('retry-after', '2')
          .send(errorBody(503, 'The store cannot reach its database right now; retry in a moment'));
      }
      request.log.error({ err: error }, 'request failed');
      return reply.code(500).send(errorBody(500, 'The server failed to handle this request; it has been logged'));
    });
    app.setNotFoundHandler((request, reply) =>
      reply
        .code(404)
        .header('cache-control', 'no-store')
        .send(errorBody(404, `No resource at ${request.method} ${request.url.split('?')[0] ?? ''}`)),
    );
  },
  { name: 'error-format' },
);

/**
 * What Node's HTTP parser refuses before Fastify sees a request (a request line and headers past 16 KiB, bytes
 * that are not HTTP, a request that never finishes arriving) is answered in the store's format too.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, details] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request line and headers are larger than this API accepts (16 KiB)']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request did not arrive in time']
        : [400, 'The request is not valid HTTP'];
  const body = JSON.stringify(errorBody(status, details));
  const tls = 'encrypted' in socket && socket.encrypted === true ? `Strict-Transport-Security: ${HSTS}\r\n` : '';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${tls}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * What Fastify refuses before a route is chosen (a path that is not valid percent-encoding, a path segment longer
 * than any id) is answered in the store's format too, in the console's paths as well.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 500;
  const details =
    error.code === 'FST_ERR_BAD_URL'
      ? 'The path is not valid percent-encoding'
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'A segment of the path is longer than any id or name here'
        : 'The server failed to handle this request; it has been logged';
  if (status >= 500) request.log.error({ err: error }, 'request failed before routing');
  if (request.protocol === 'https') void reply.header('strict-transport-security', HSTS);
  void reply.code(status).header('cache-control', 'no-store').send(errorBody(status, details));
}
