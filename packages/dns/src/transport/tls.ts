// One query over DNS over TLS (RFC 7858): a TLS connection offering the `dot` ALPN (RFC 8310 §7.1 via
// IANA), then the two-byte length framing of DNS over TCP. The handshake completes whatever the
// certificate; what it showed comes back with the reply, for the caller to judge.
import { connect } from 'node:tls';
import { abortReason, settleOnce, type ExchangeOptions, type ExchangeOutcome, type ServerAddress } from './exchange.ts';
import { framedReply } from './tcp.ts';
import { tcpFrame, TcpFrames } from './tcp-framing.ts';
import { tlsSession, type TlsClientOptions, type TlsSession } from './tls-session.ts';

export const DOT_PORT = 853;

export interface TlsExchangeOutcome {
  outcome: ExchangeOutcome;
  /** Set once the handshake completed. */
  session?: TlsSession;
}

export function tlsExchange(
  server: ServerAddress,
  packet: Uint8Array,
  options: ExchangeOptions & TlsClientOptions,
): Promise<TlsExchangeOutcome> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortReason(options.signal));
      return;
    }
    let session: TlsSession | undefined;
    const socket = connect({
      host: server.address,
      port: server.port ?? DOT_PORT,
      ...(options.serverName !== undefined && { servername: options.serverName }),
      ...(options.ca !== undefined && { ca: options.ca }),
      ...(options.secureContext !== undefined && { secureContext: options.secureContext }),
      ALPNProtocols: ['dot'],
      rejectUnauthorized: false,
      // Without a name the chain alone is judged.
      ...(options.serverName === undefined && { checkServerIdentity: () => undefined }),
    });
    const frames = new TcpFrames();
    const timer = setTimeout(() => exchange.finish({ kind: 'timeout' }), options.timeoutMs);
    const exchange = settleOnce(
      options.signal,
      (outcome) => resolve({ outcome, ...(session && { session }) }),
      reject,
      () => {
        clearTimeout(timer);
        socket.removeAllListeners('data');
        socket.on('error', () => undefined);
        socket.destroy();
      },
    );
    socket.on('error', (error: Error) => exchange.finish({ kind: 'error', error }));
    socket.on('close', () => exchange.finish({ kind: 'error', error: new Error('connection closed before a reply') }));
    socket.on('secureConnect', () => {
      session = tlsSession(socket, options.serverName);
      socket.write(tcpFrame(packet));
    });
    socket.on('data', (chunk: Buffer) => {
      const outcome = framedReply(frames, chunk, options, server.address);
      if (outcome) exchange.finish(outcome);
    });
  });
}
