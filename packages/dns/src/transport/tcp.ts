// One query over TCP with the two-byte length framing of RFC 1035 §4.2.2 (RFC 7766).
import { connect } from 'node:net';
import { abortReason, DNS_PORT, settleOnce, type ExchangeOptions, type ExchangeOutcome, type ServerAddress } from './exchange.ts';
import { tcpFrame, TcpFrames } from './tcp-framing.ts';

export function tcpExchange(server: ServerAddress, packet: Uint8Array, options: ExchangeOptions): Promise<ExchangeOutcome> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortReason(options.signal));
      return;
    }
    const socket = connect({ host: server.address, port: server.port ?? DNS_PORT, localAddress: options.sourceAddress });
    const frames = new TcpFrames();
    const timer = setTimeout(() => exchange.finish({ kind: 'timeout' }), options.timeoutMs);
    const exchange = settleOnce(options.signal, resolve, reject, () => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      socket.on('error', () => undefined);
      socket.destroy();
    });
    socket.on('error', (error) => exchange.finish({ kind: 'error', error }));
    socket.on('close', () => exchange.finish({ kind: 'error', error: new Error('connection closed before a reply') }));
    socket.on('connect', () => socket.write(tcpFrame(packet)));
    socket.on('data', (chunk: Buffer) => {
      const outcome = framedReply(frames, chunk, options, server.address);
      if (outcome) exchange.finish(outcome);
    });
  });
}

/**
 * What the bytes a stream just delivered settle: the first whole message the exchange accepts (a server
 * may send others first), or an error for one announced over the size limit; undefined while neither has come.
 */
export function framedReply(frames: TcpFrames, chunk: Buffer, options: ExchangeOptions, from: string): ExchangeOutcome | undefined {
  frames.push(chunk);
  for (let length = frames.nextLength(); length !== undefined; length = frames.nextLength()) {
    if (length > options.maxResponseSize)
      return { kind: 'error', error: new Error(`reply of ${length} bytes exceeds the ${options.maxResponseSize}-byte limit`) };
    const bytes = frames.next();
    if (!bytes) return undefined;
    if (options.accepts(bytes)) return { kind: 'reply', bytes, from };
  }
  return undefined;
}
