// One query over an encrypted transport: DNS over TLS, or DNS over HTTPS by GET or POST. One attempt,
// the whole of it (connection, handshake, reply) within the timeout, so a silent port costs no more.
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { RRClass } from '../constants.ts';
import { Name } from '../name.ts';
import { DnsDecodeError } from '../wire/errors.ts';
import { decodeMessage, encodeMessage, type EdnsInput, type Message } from '../wire/message.ts';
import type { ExchangeOptions, ServerAddress } from './exchange.ts';
import { httpsExchange } from './https.ts';
import type { QuestionInput } from './query.ts';
import { tlsExchange, type TlsExchangeOutcome } from './tls.ts';
import type { TlsClientOptions, TlsSession } from './tls-session.ts';

export type EncryptedTransport = 'dot' | 'doh-get' | 'doh-post';

export interface EncryptedQueryOptions extends TlsClientOptions {
  transport: EncryptedTransport;
  /** The whole exchange; default 5000. */
  timeoutMs?: number;
  edns?: EdnsInput;
  signal?: AbortSignal;
  /** DoH: default /dns-query. */
  path?: string;
}

export type EncryptedQueryResult = { transport: EncryptedTransport; rttMs: number; session?: TlsSession } & (
  | { outcome: 'response'; message: Message; bytes: Uint8Array }
  | { outcome: 'malformed'; bytes: Uint8Array; error: DnsDecodeError }
  | { outcome: 'timeout' }
  | { outcome: 'network-error'; error: Error }
);

export async function encryptedQuery(
  server: ServerAddress,
  question: QuestionInput,
  options: EncryptedQueryOptions,
): Promise<EncryptedQueryResult> {
  const name = typeof question.name === 'string' ? Name.fromString(question.name) : question.name;
  // DoH asks for id 0, so that identical GETs may be cached (RFC 8484 §4.1).
  const id = options.transport === 'dot' ? randomInt(0, 0x10000) : 0;
  const packet = encodeMessage({ id, question: [{ name, type: question.type, class: question.class ?? RRClass.IN }], edns: options.edns });
  let decoded: Message | DnsDecodeError | undefined;
  const exchange: ExchangeOptions & TlsClientOptions = {
    timeoutMs: options.timeoutMs ?? 5000,
    signal: options.signal,
    maxResponseSize: 0xffff,
    serverName: options.serverName,
    ca: options.ca,
    secureContext: options.secureContext,
    accepts(reply) {
      if (reply.length < 2 || ((reply[0] << 8) | reply[1]) !== id) return false;
      try {
        decoded = decodeMessage(reply);
      } catch (error) {
        if (!(error instanceof DnsDecodeError)) throw error;
        decoded = error;
      }
      return true;
    },
  };
  const started = performance.now();
  const result: TlsExchangeOutcome =
    options.transport === 'dot'
      ? await tlsExchange(server, packet, exchange)
      : await httpsExchange(server, packet, { ...exchange, method: options.transport === 'doh-get' ? 'GET' : 'POST', path: options.path });
  const common = { transport: options.transport, rttMs: performance.now() - started, ...(result.session && { session: result.session }) };
  const { outcome } = result;
  if (outcome.kind === 'timeout') return { ...common, outcome: 'timeout' };
  if (outcome.kind === 'error') return { ...common, outcome: 'network-error', error: outcome.error };
  if (decoded instanceof DnsDecodeError) return { ...common, outcome: 'malformed', bytes: outcome.bytes, error: decoded };
  return { ...common, outcome: 'response', message: decoded!, bytes: outcome.bytes };
}
