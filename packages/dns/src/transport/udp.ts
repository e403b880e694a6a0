// One query over UDP: resend while no reply comes, drop replies from elsewhere or for other queries.
// Queries share one socket per IP version and source address: a socket of its own per query cost a
// bind and a close each, about 10% of a test run. A reply goes to the waiting query it belongs to
// (same server address and port, unless `anySource`, and `accepts`: the query's id and question).
import { createSocket, type Socket } from 'node:dgram';
import { ipBytes, ipv6ToString } from '../wire/address.ts';
import { abortReason, DNS_PORT, settleOnce, type ExchangeOptions, type ExchangeOutcome, type ServerAddress } from './exchange.ts';

interface Waiting {
  options: ExchangeOptions;
  finish(outcome: ExchangeOutcome | Error): void;
}

interface Shared {
  socket: Socket;
  ready: Promise<void>;
  /** Waiting queries by the address and port a reply must come from; `anySource` ones under ANY. */
  waiting: Map<string, Set<Waiting>>;
}

const ANY = '*';

// A run asks a few dozen addresses hundreds of times: each address text is read once. Bounded, for a
// process that tests domain after domain.
const addressForms = new Map<string, { family: 4 | 6; reported: string }>();

function addressForm(address: string): { family: 4 | 6; reported: string } {
  let form = addressForms.get(address);
  if (!form) {
    const bytes = ipBytes(address);
    form = bytes?.length === 16 ? { family: 6, reported: ipv6ToString(bytes) } : { family: 4, reported: address };
    if (addressForms.size >= 4096) addressForms.clear();
    addressForms.set(address, form);
  }
  return form;
}

/** Address and port as the socket reports a sender: IPv6 in its RFC 5952 form, as libuv writes it. */
function senderKey(address: string, port: number): string {
  return `${addressForm(address).reported}#${port}`;
}

// Replies to many queries in flight queue up here until read.
const RECEIVE_BUFFER = 256 * 1024;
const sockets = new Map<string, Shared>();

function sharedSocket(family: 4 | 6, sourceAddress: string | undefined): Shared {
  const key = `${family}/${sourceAddress ?? ''}`;
  const existing = sockets.get(key);
  if (existing) return existing;
  // Addresses here are always literals: skip dgram's name lookup (a check and a tick) on every send.
  const lookup = (address: string, _options: unknown, callback: (error: null, address: string, family: number) => void) =>
    callback(null, address, family);
  const socket = createSocket({ type: family === 6 ? 'udp6' : 'udp4', recvBufferSize: RECEIVE_BUFFER, lookup });
  const waiting = new Map<string, Set<Waiting>>();
  const shared: Shared = {
    socket,
    waiting,
    ready: new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: sourceAddress, port: 0 }, () => {
        socket.off('error', reject);
        resolve();
      });
    }),
  };
  sockets.set(key, shared);
  socket.on('message', (msg, from) => {
    const bytes = new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
    for (const candidates of [waiting.get(`${from.address}#${from.port}`), waiting.get(ANY)]) {
      for (const query of candidates ?? []) {
        if (msg.length > query.options.maxResponseSize || !query.options.accepts(bytes)) continue;
        query.finish({ kind: 'reply', bytes, from: from.address });
        return;
      }
    }
  });
  // A socket that fails fails every query on it; the next query opens a new one.
  socket.on('error', (error) => {
    if (sockets.get(key) === shared) sockets.delete(key);
    for (const queries of waiting.values()) for (const query of queries) query.finish({ kind: 'error', error });
    socket.close();
  });
  // An idle socket must not keep the process alive; a waiting query's timer does.
  socket.unref();
  return shared;
}

export function udpExchange(
  server: ServerAddress,
  packet: Uint8Array,
  attempts: number,
  options: ExchangeOptions & { resendMs: number },
): Promise<ExchangeOutcome> {
  const port = server.port ?? DNS_PORT;
  const resendMs = Math.min(options.resendMs, options.timeoutMs);
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortReason(options.signal));
      return;
    }
    const shared = sharedSocket(addressForm(server.address).family, options.sourceAddress);
    let timer: NodeJS.Timeout | undefined;
    let sent = 0;
    const from = options.anySource ? ANY : senderKey(server.address, port);
    const exchange = settleOnce(options.signal, resolve, reject, () => {
      clearTimeout(timer);
      const queries = shared.waiting.get(from);
      queries?.delete(query);
      if (queries?.size === 0) shared.waiting.delete(from);
    });
    const query: Waiting = { options, finish: (outcome) => exchange.finish(outcome) };
    const send = () => {
      if (exchange.done) return;
      sent++;
      shared.socket.send(packet, port, server.address, (error) => {
        if (error) exchange.finish({ kind: 'error', error });
      });
      // Resends go out every `resendMs`; the last send still gets the whole timeout. A reply to any send counts.
      timer = sent < attempts ? setTimeout(send, resendMs) : setTimeout(() => exchange.finish({ kind: 'timeout' }), options.timeoutMs);
    };
    const queries = shared.waiting.get(from) ?? new Set();
    shared.waiting.set(from, queries.add(query));
    shared.ready.then(send, (error: Error) => exchange.finish({ kind: 'error', error }));
  });
}
