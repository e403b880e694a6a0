// One query over UDP: resend on timeout, drop replies from elsewhere or for other queries.
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { abortReason, DNS_PORT, type ExchangeOptions, type ExchangeOutcome, type ServerAddress } from './exchange.ts';

export function udpExchange(server: ServerAddress, packet: Uint8Array, attempts: number, options: ExchangeOptions): Promise<ExchangeOutcome> {
  const port = server.port ?? DNS_PORT;
  const family = isIPv6(server.address) ? 'udp6' : 'udp4';
  return new Promise((resolve, reject) => {
    const socket: Socket = createSocket({ type: family, recvBufferSize: Math.max(options.maxResponseSize, 4096) });
    let timer: NodeJS.Timeout | undefined;
    let sent = 0;
    let done = false;
    const finish = (outcome: ExchangeOutcome | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.removeAllListeners('message');
      socket.on('error', () => undefined);
      socket.close();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onAbort = () => finish(abortReason(options.signal!));
    const send = () => {
      if (done) return;
      sent++;
      socket.send(packet, port, server.address, (error) => {
        if (error) finish({ kind: 'error', error });
      });
      timer = setTimeout(() => (sent < attempts ? send() : finish({ kind: 'timeout' })), options.timeoutMs);
    };
    if (options.signal?.aborted) {
      socket.close();
      reject(abortReason(options.signal));
      return;
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (error) => finish({ kind: 'error', error }));
    socket.on('message', (msg, from) => {
      if (from.port !== port || !sameAddress(from.address, server.address)) return;
      if (msg.length > options.maxResponseSize) return;
      const bytes = new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
      if (options.accepts(bytes)) finish({ kind: 'reply', bytes });
    });
    socket.bind({ address: options.sourceAddress, port: 0 }, send);
  });
}

function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  // IPv6 text may differ in form (case, zero compression) for the same address.
  return isIPv6(a) && isIPv6(b) && new URL(`http://[${a}]`).hostname === new URL(`http://[${b}]`).hostname;
}
