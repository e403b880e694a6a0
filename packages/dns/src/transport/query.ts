// A query to one server: UDP with resends (or TCP), falling back to TCP when the reply is truncated.
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { RRClass } from '../constants.ts';
import { Name } from '../name.ts';
import { DnsDecodeError } from '../wire/errors.ts';
import { decodeMessage, encodeMessage, type EdnsInput, type Message, type Question } from '../wire/message.ts';
import { signRequest, type TsigKey } from '../wire/tsig.ts';
import type { ExchangeOptions, ExchangeOutcome, ServerAddress } from './exchange.ts';
import { tcpExchange } from './tcp.ts';
import { udpExchange } from './udp.ts';

export type { ServerAddress } from './exchange.ts';

export type Transport = 'udp' | 'tcp';

export interface QuestionInput {
  name: Name | string;
  type: number;
  class?: number;
}

export interface QueryOptions {
  /** Default 'udp'. */
  transport?: Transport;
  /** Per attempt; default 5000. */
  timeoutMs?: number;
  /** Further attempts after a timeout; default 2. */
  retries?: number;
  /**
   * UDP: resend after this long without a reply, still listening for a reply to the earlier sends;
   * the last send gets the whole timeout. Default: the timeout (one send after another).
   */
  resendMs?: number;
  /** Without it the query carries no OPT record. */
  edns?: EdnsInput;
  /** Default false: the engine asks authoritative servers. */
  rd?: boolean;
  cd?: boolean;
  ad?: boolean;
  /** Header bits a well-formed query leaves clear, for protocol compliance tests. */
  aa?: boolean;
  tc?: boolean;
  ra?: boolean;
  z?: boolean;
  /** Default 0 (QUERY). */
  opcode?: number;
  /** Send the header (and OPT record) without the question: an unknown opcode's request has none. */
  noQuestion?: boolean;
  /** Sign the request with this key (TSIG, RFC 8945); the result then carries the request's MAC. */
  tsig?: TsigKey;
  signal?: AbortSignal;
  sourceAddress?: string;
  /** Retry over TCP when a UDP reply has TC set; default true. */
  tcFallback?: boolean;
  /** Default 65535. */
  maxResponseSize?: number;
  /** UDP: accept a reply from another address or port than the one asked (see `from` in the result). */
  anySource?: boolean;
}

interface Common {
  transport: Transport;
  /** Milliseconds from the first send to the outcome (all attempts). */
  rttMs: number;
  /** Set when a truncated UDP reply led to this TCP result. */
  truncatedUdp?: Message;
  /** The MAC of a signed request (options.tsig), which the reply's is computed over. */
  requestMac?: Uint8Array;
}

export type QueryResult =
  /** `from`: the address the reply came from (another than the one asked only with `anySource`). */
  | (Common & { outcome: 'response'; message: Message; bytes: Uint8Array; from: string })
  /** A reply for this query that cannot be decoded. */
  | (Common & { outcome: 'malformed'; bytes: Uint8Array; error: DnsDecodeError })
  | (Common & { outcome: 'timeout' })
  | (Common & { outcome: 'network-error'; error: Error });

export async function query(server: ServerAddress, question: QuestionInput, options: QueryOptions = {}): Promise<QueryResult> {
  const q: Question = {
    name: typeof question.name === 'string' ? Name.fromString(question.name) : question.name,
    type: question.type,
    class: question.class ?? RRClass.IN,
  };
  const first = await queryOver(options.transport ?? 'udp', server, q, options);
  if (first.outcome === 'response' && first.message.tc && first.transport === 'udp' && options.tcFallback !== false) {
    const overTcp = await queryOver('tcp', server, q, options);
    return { ...overTcp, truncatedUdp: first.message, rttMs: first.rttMs + overTcp.rttMs };
  }
  return first;
}

async function queryOver(transport: Transport, server: ServerAddress, q: Question, options: QueryOptions): Promise<QueryResult> {
  const id = randomInt(0, 0x10000);
  const unsigned = encodeMessage({
    id,
    opcode: options.opcode ?? 0,
    rd: options.rd ?? false,
    cd: options.cd ?? false,
    ad: options.ad ?? false,
    aa: options.aa ?? false,
    tc: options.tc ?? false,
    ra: options.ra ?? false,
    z: options.z ?? false,
    question: options.noQuestion ? [] : [q],
    edns: options.edns,
  });
  const signed = options.tsig && signRequest(unsigned, options.tsig);
  const packet = signed ? signed.packet : unsigned;
  const mac = signed && { requestMac: signed.mac };
  let decoded: Message | DnsDecodeError | undefined;
  const exchange: ExchangeOptions = {
    timeoutMs: options.timeoutMs ?? 5000,
    signal: options.signal,
    sourceAddress: options.sourceAddress,
    maxResponseSize: options.maxResponseSize ?? 0xffff,
    anySource: options.anySource,
    accepts(reply) {
      if (reply.length < 2 || ((reply[0] << 8) | reply[1]) !== id) return false;
      try {
        const message = decodeMessage(reply);
        if (!options.noQuestion && !questionMatches(message, q)) return false;
        decoded = message;
      } catch (error) {
        if (!(error instanceof DnsDecodeError)) throw error;
        decoded = error;
      }
      return true;
    },
  };
  const attempts = 1 + (options.retries ?? 2);
  const started = performance.now();
  let outcome: ExchangeOutcome;
  if (transport === 'udp') {
    outcome = await udpExchange(server, packet, attempts, { ...exchange, resendMs: options.resendMs ?? exchange.timeoutMs });
  } else {
    // Each TCP attempt is a fresh connection.
    for (let i = 0; ; i++) {
      outcome = await tcpExchange(server, packet, exchange);
      if (outcome.kind !== 'timeout' || i + 1 >= attempts) break;
    }
  }
  const rttMs = performance.now() - started;
  if (outcome.kind === 'timeout') return { outcome: 'timeout', transport, rttMs, ...mac };
  if (outcome.kind === 'error') return { outcome: 'network-error', transport, rttMs, error: outcome.error, ...mac };
  if (decoded instanceof DnsDecodeError) return { outcome: 'malformed', transport, rttMs, bytes: outcome.bytes, error: decoded, ...mac };
  return { outcome: 'response', transport, rttMs, bytes: outcome.bytes, message: decoded!, from: outcome.from, ...mac };
}

// A reply names the question it answers (RFC 5452 §4.2); some servers leave it out on errors.
function questionMatches(reply: Message, q: Question): boolean {
  if (reply.question.length === 0) return true;
  if (reply.question.length !== 1) return false;
  const got = reply.question[0];
  return got.type === q.type && got.class === q.class && got.name.equals(q.name);
}
