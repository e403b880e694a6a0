// One query over UDP: resend while no reply comes, drop replies from elsewhere or for other queries.
import { createSocket } from 'node:dgram';
import { ipFamily, sameIpAddress } from '../wire/address.ts';
import { abortReason, DNS_PORT, settleOnce, type ExchangeOptions, type ExchangeOutcome, type ServerAddress } from './exchange.ts';

export function udpExchange(server: ServerAddress, packet: Uint8Array, attempts: number, options: ExchangeOptions & { resendMs: number }): Promise<ExchangeOutcome> {
  const port = server.port ?? DNS_PORT;
  const resendMs = Math.min(options.resendMs, options.timeoutMs);
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortReason(options.signal));
      return;
    }
    const family = ipFamily(server.address) === 6 ? 6 : 4;
    // Addresses here are always literals: skip dgram's name lookup (a check and a tick) on every send.
    const lookup = (address: string, _options: unknown, callback: (error: null, address: string, family: number) => void) => callback(null, address, family);
    const socket = createSocket({ type: family === 6 ? 'udp6' : 'udp4', recvBufferSize: Math.max(options.maxResponseSize, 4096), lookup });
    let timer: NodeJS.Timeout | undefined;
    let sent = 0;
    const exchange = settleOnce(options.signal, resolve, reject, () => {
      clearTimeout(timer);
      socket.removeAllListeners('message');
      socket.on('error', () => undefined);
      socket.close();
    });
    const send = () => {
      if (exchange.done) return;
      sent++;
      socket.send(packet, port, server.address, (error) => {
        if (error) exchange.finish({ kind: 'error', error });
      });
      // Resends go out every `resendMs`; the last send still gets the whole timeout. A reply to any send counts.
      timer = sent < attempts ? setTimeout(send, resendMs) : setTimeout(() => exchange.finish({ kind: 'timeout' }), options.timeoutMs);
    };
    socket.on('error', (error) => exchange.finish({ kind: 'error', error }));
    socket.on('message', (msg, from) => {
      if (!options.anySource && (from.port !== port || !sameIpAddress(from.address, server.address))) return;
      if (msg.length > options.maxResponseSize) return;
      const bytes = new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
      if (options.accepts(bytes)) exchange.finish({ kind: 'reply', bytes, from: from.address });
    });
    socket.bind({ address: options.sourceAddress, port: 0 }, send);
  });
}
