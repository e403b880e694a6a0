// Asks the BIND view behind a misbehaving server (same address, backend port) for the honest answer.
// TCP answers may span several messages (a zone transfer), so TCP returns a list.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { decodeMessage, RRType, tcpFrame, TcpFrames } from '@app/dns';

const timeoutMs = 3000;

export function forwardUdp(address: string, port: number, query: Uint8Array): Promise<Uint8Array | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4');
    const done = (reply?: Uint8Array): void => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    };
    const timer = setTimeout(() => done(), timeoutMs);
    socket.on('error', () => done());
    socket.on('message', (reply) => {
      if (reply.length >= 2 && reply[0] === query[0] && reply[1] === query[1]) done(new Uint8Array(reply));
    });
    socket.send(query, port, address);
  });
}

/** A zone transfer ends with its second SOA (or at once with an error rcode). */
function complete(messages: Uint8Array[], isTransfer: boolean): boolean {
  if (!isTransfer) return messages.length > 0;
  let soas = 0;
  for (const bytes of messages) {
    const message = decodeMessage(bytes);
    if (message.rcode !== 0) return true;
    soas += message.answer.filter((rr) => rr.type === RRType.SOA).length;
  }
  return soas >= 2;
}

export function forwardTcp(address: string, port: number, query: Uint8Array, isTransfer: boolean): Promise<Uint8Array[]> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    const frames = new TcpFrames();
    const messages: Uint8Array[] = [];
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(messages);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('connect', () => socket.write(tcpFrame(query)));
    socket.on('data', (chunk) => {
      frames.push(chunk);
      messages.push(...frames.takeAll());
      if (complete(messages, isTransfer)) done();
    });
    socket.on('error', done);
    socket.on('close', done);
  });
}
