// A zone transfer (AXFR, RFC 5936) over TCP: one query, then as many length-framed messages as the
// zone needs, ending with the zone's SOA again. The caller may stop as soon as it has seen enough.
import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import { RRClass, RRType } from '../constants.ts';
import { Name } from '../name.ts';
import { DnsDecodeError } from '../wire/errors.ts';
import { decodeMessage, encodeMessage, type Message } from '../wire/message.ts';
import { abortReason, DNS_PORT, settleOnce, type ServerAddress } from './exchange.ts';
import { tcpFrame, TcpFrames } from './tcp-framing.ts';

export interface TransferOptions {
  /** Without a new message for this long the transfer ends as a timeout; default 5000. */
  timeoutMs?: number;
  signal?: AbortSignal;
  sourceAddress?: string;
  /** Called with each message; returning false ends the transfer there ('stopped'). */
  onMessage?: (message: Message) => boolean;
  /** A hostile server could stream forever: the transfer ends as an error past this many bytes (default 64 MiB). */
  maxBytes?: number;
}

export interface TransferResult {
  /**
   * complete: the closing SOA came; refused: a message with an error rcode ended it; stopped: onMessage
   * said so; the others: no complete transfer (messages holds what came before).
   */
  outcome: 'complete' | 'refused' | 'stopped' | 'timeout' | 'network-error' | 'malformed';
  messages: Message[];
  error?: Error;
}

export function transferZone(server: ServerAddress, zone: Name | string, options: TransferOptions = {}): Promise<TransferResult> {
  const name = typeof zone === 'string' ? Name.fromString(zone) : zone;
  const id = randomInt(0, 0x10000);
  const query = encodeMessage({ id, question: [{ name, type: RRType.AXFR, class: RRClass.IN }] });
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const messages: Message[] = [];
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortReason(options.signal));
      return;
    }
    const socket = connect({ host: server.address, port: server.port ?? DNS_PORT, localAddress: options.sourceAddress });
    const frames = new TcpFrames();
    let received = 0;
    let soas = 0;
    let timer = setTimeout(() => end('timeout'), timeoutMs);
    // settleOnce releases the socket once and turns an abort into a rejection; the result is resolved by end().
    const settled = settleOnce(
      options.signal,
      () => undefined,
      reject,
      () => {
        clearTimeout(timer);
        socket.removeAllListeners('data');
        socket.on('error', () => undefined);
        socket.destroy();
      },
    );
    const end = (outcome: TransferResult['outcome'], error?: Error): void => {
      if (settled.done) return;
      settled.finish({ kind: 'timeout' });
      resolve({ outcome, messages, ...(error && { error }) });
    };
    socket.on('error', (error) => end('network-error', error));
    socket.on('close', () => end('network-error', new Error('connection closed before the transfer ended')));
    socket.on('connect', () => socket.write(tcpFrame(query)));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) return end('network-error', new Error(`transfer exceeds ${maxBytes} bytes`));
      frames.push(chunk);
      for (let bytes = frames.next(); bytes && !settled.done; bytes = frames.next()) {
        let message: Message;
        try {
          message = decodeMessage(bytes);
        } catch (error) {
          if (!(error instanceof DnsDecodeError)) throw error;
          return end('malformed', error);
        }
        if (message.id !== id) continue;
        messages.push(message);
        clearTimeout(timer);
        timer = setTimeout(() => end('timeout'), timeoutMs);
        if (message.rcode !== 0) return end('refused');
        if (options.onMessage && !options.onMessage(message)) return end('stopped');
        soas += message.answer.filter((rr) => rr.type === RRType.SOA).length;
        if (soas >= 2) return end('complete');
      }
    });
  });
}
