// One query over DNS over HTTPS (RFC 8484 §4.1): HTTP/2 over TLS, GET with the message in the `dns`
// parameter (base64url) or POST with it as the body, both `application/dns-message`. One connection
// per query: the caller asks a handful, and a fresh handshake is what it wants to see.
import { connect as http2Connect, constants } from 'node:http2';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { abortReason, settleOnce, type ExchangeOptions, type ServerAddress } from './exchange.ts';
import type { TlsExchangeOutcome } from './tls.ts';
import { tlsSession, type TlsClientOptions, type TlsSession } from './tls-session.ts';

export const DOH_PORT = 443;
export const DOH_PATH = '/dns-query';
const mediaType = 'application/dns-message';

export type DohMethod = 'GET' | 'POST';

export interface HttpsOptions {
  method: DohMethod;
  /** Default /dns-query. */
  path?: string;
}

const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

export function httpsExchange(
  server: ServerAddress,
  packet: Uint8Array,
  options: ExchangeOptions & TlsClientOptions & HttpsOptions,
): Promise<TlsExchangeOutcome> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortReason(options.signal));
      return;
    }
    const port = server.port ?? DOH_PORT;
    const host = server.address.includes(':') ? `[${server.address}]` : server.address;
    const authority = `${options.serverName ?? host}${port === DOH_PORT ? '' : `:${port}`}`;
    let session: TlsSession | undefined;
    let socket: TLSSocket | undefined;
    // The connection's own error (a refused port, say): HTTP/2 reports it to the request only as a cancelled stream.
    let socketError: Error | undefined;
    const client = http2Connect(`https://${host}:${port}`, {
      createConnection: () => {
        socket = tlsConnect({
          host: server.address,
          port,
          ...(options.serverName !== undefined && { servername: options.serverName }),
          ...(options.ca !== undefined && { ca: options.ca }),
          ...(options.secureContext !== undefined && { secureContext: options.secureContext }),
          ALPNProtocols: ['h2'],
          rejectUnauthorized: false,
          ...(options.serverName === undefined && { checkServerIdentity: () => undefined }),
        });
        socket.once('secureConnect', () => (session = tlsSession(socket!, options.serverName)));
        socket.on('error', (error: Error) => (socketError = error));
        return socket;
      },
    });
    const timer = setTimeout(() => exchange.finish({ kind: 'timeout' }), options.timeoutMs);
    const exchange = settleOnce(
      options.signal,
      (outcome) => resolve({ outcome, ...(session && { session }) }),
      reject,
      () => {
        clearTimeout(timer);
        client.on('error', () => undefined);
        client.destroy();
        socket?.destroy();
      },
    );
    client.on('error', (error: Error) => exchange.finish({ kind: 'error', error }));
    const path = options.path ?? DOH_PATH;
    const get = options.method === 'GET';
    const request = client.request({
      [constants.HTTP2_HEADER_METHOD]: options.method,
      [constants.HTTP2_HEADER_PATH]: get ? `${path}?dns=${base64url(packet)}` : path,
      [constants.HTTP2_HEADER_AUTHORITY]: authority,
      [constants.HTTP2_HEADER_ACCEPT]: mediaType,
      ...(!get && { [constants.HTTP2_HEADER_CONTENT_TYPE]: mediaType, [constants.HTTP2_HEADER_CONTENT_LENGTH]: packet.length }),
    });
    request.on('error', (error: Error) => setImmediate(() => exchange.finish({ kind: 'error', error: socketError ?? error })));
    let status = 0;
    let type = '';
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('response', (headers) => {
      status = Number(headers[constants.HTTP2_HEADER_STATUS]);
      type = String(headers[constants.HTTP2_HEADER_CONTENT_TYPE] ?? '');
    });
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.maxResponseSize) {
        exchange.finish({ kind: 'error', error: new Error(`reply exceeds the ${options.maxResponseSize}-byte limit`) });
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (status !== 200) return exchange.finish({ kind: 'error', error: new Error(`HTTP status ${status}`) });
      if (!type.startsWith(mediaType)) return exchange.finish({ kind: 'error', error: new Error(`HTTP content type ${type || 'none'}`) });
      const bytes = new Uint8Array(Buffer.concat(chunks));
      if (options.accepts(bytes)) exchange.finish({ kind: 'reply', bytes, from: server.address });
      else exchange.finish({ kind: 'error', error: new Error('reply does not answer the query') });
    });
    if (!get) request.end(Buffer.from(packet));
    else request.end();
  });
}
