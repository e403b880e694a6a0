// One query over TCP with the two-byte length framing of RFC 1035 §4.2.2 (RFC 7766).
import { connect } from 'node:net';
import { abortReason, DNS_PORT, settleOnce, type ExchangeOptions, type ExchangeOutcome, type ServerAddress } from './exchange.ts';

export function tcpExchange(server: ServerAddress, packet: Uint8Array, options: ExchangeOptions): Promise<ExchangeOutcome> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortReason(options.signal));
      return;
    }
    const socket = connect({ host: server.address, port: server.port ?? DNS_PORT, localAddress: options.sourceAddress });
    let buffered: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => exchange.finish({ kind: 'timeout' }), options.timeoutMs);
    const exchange = settleOnce(options.signal, resolve, reject, () => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      socket.on('error', () => undefined);
      socket.destroy();
    });
    socket.on('error', (error) => exchange.finish({ kind: 'error', error }));
    socket.on('close', () => exchange.finish({ kind: 'error', error: new Error('connection closed before a reply') }));
    socket.on('connect', () => {
      const frame = Buffer.alloc(2 + packet.length);
      frame.writeUInt16BE(packet.length);
      frame.set(packet, 2);
      socket.write(frame);
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      // A server may send other messages first; read frames until one matches.
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (length > options.maxResponseSize) {
          exchange.finish({ kind: 'error', error: new Error(`reply of ${length} bytes exceeds the ${options.maxResponseSize}-byte limit`) });
          return;
        }
        if (buffered.length < 2 + length) return;
        const bytes = new Uint8Array(buffered.buffer, buffered.byteOffset + 2, length);
        buffered = buffered.subarray(2 + length);
        if (options.accepts(bytes)) {
          exchange.finish({ kind: 'reply', bytes, from: server.address });
          return;
        }
      }
    });
  });
}
