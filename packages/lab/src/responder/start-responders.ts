// Our own small UDP/TCP server on port 53 of each misbehaving server's addresses (inside the lab's
// namespace). Without TCP, nothing listens on TCP, so connections are refused; with silent TCP,
// connections are accepted and queries never answered.
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Socket } from 'node:net';
import { tcpFrame, TcpFrames } from '@app/dns';
import type { LabServer, WorldPlan } from '../world/world-plan.ts';
import { forwardTcp, forwardUdp } from './backend.ts';
import { respond, type Backend, type RootServer } from './misbehaviour.ts';
import { drawDelay, parseLatency, type Latency } from '../scenario/latency.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Responders {
  stop(): Promise<void>;
}

export async function startResponders(servers: LabServer[], plan: WorldPlan): Promise<Responders> {
  // The wait runs beside the backend's answer, so the delay is the one asked for, not delay + BIND.
  // A server's own delay replaces the lab's latency.
  const delayedBy =
    (latency: Latency | undefined) =>
    (handle: Handler): Handler =>
      latency === undefined ? handle : async (query) => (await Promise.all([handle(query), sleep(drawDelay(latency))]))[0];
  const roots: RootServer[] = plan.servers
    .filter((s) => s.zones.some((z) => z.origin === '.'))
    .map((s) => ({ name: s.name, addresses: s.addresses }));
  const sockets: UdpSocket[] = [];
  const listeners: TcpListener[] = [];
  for (const server of servers) {
    // A server that answers from another address sends its UDP replies from there (port 53 too), to
    // the queries sent to its addresses of the same family.
    const answerFrom = server.behaviour.answerFrom;
    const replyFrom = answerFrom === undefined ? undefined : await udpSocket(answerFrom, () => undefined);
    if (replyFrom) sockets.push(replyFrom);
    const delayed = delayedBy(server.behaviour.delay === undefined ? plan.latency : parseLatency(server.behaviour.delay));
    const silent: Handler = () => Promise.resolve([]);
    for (const address of server.addresses) {
      const backend: Backend = {
        async ask(query, transport, isTransfer) {
          if (transport === 'tcp') return forwardTcp(address, plan.backendPort, query, isTransfer);
          const reply = await forwardUdp(address, plan.backendPort, query);
          return reply === undefined ? [] : [reply];
        },
      };
      const sameFamily = replyFrom !== undefined && answerFrom!.includes(':') === address.includes(':');
      const overUdp: Handler =
        server.behaviour.udp === 'silent' ? silent : delayed((query) => respond(query, 'udp', server.behaviour, backend, roots));
      sockets.push(await udpListener(address, overUdp, sameFamily ? replyFrom : undefined));
      const overTcp: Handler =
        server.behaviour.tcp === 'silent' ? silent : delayed((query) => respond(query, 'tcp', server.behaviour, backend, roots));
      if (server.behaviour.tcp !== false) listeners.push(await tcpListener(address, overTcp));
    }
  }
  return {
    async stop() {
      for (const socket of sockets) socket.close();
      await Promise.all(listeners.map((listener) => listener.stop()));
    },
  };
}

type Handler = (query: Uint8Array) => Promise<Uint8Array[]>;

/** A query the responder could not handle goes unanswered; the reason lands in supervisor.log. */
function logFailure(error: unknown): void {
  console.error(`responder: ${(error as Error).message}`);
}

function udpListener(address: string, handle: Handler, replyFrom?: UdpSocket): Promise<UdpSocket> {
  return udpSocket(address, (query, peer, socket) => {
    handle(new Uint8Array(query)).then((answers) => {
      for (const answer of answers) (replyFrom ?? socket).send(answer, peer.port, peer.address);
    }, logFailure);
  });
}

function udpSocket(address: string, onMessage: (message: Buffer, peer: RemoteInfo, socket: UdpSocket) => void): Promise<UdpSocket> {
  const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4');
  socket.on('message', (message, peer) => onMessage(message, peer, socket));
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, address, () => resolve(socket));
  });
}

interface TcpListener {
  stop(): Promise<void>;
}

function tcpListener(address: string, handle: Handler): Promise<TcpListener> {
  const connections = new Set<Socket>();
  const server = createServer((connection) => {
    connections.add(connection);
    connection.on('close', () => connections.delete(connection));
    const frames = new TcpFrames();
    connection.on('error', () => connection.destroy());
    connection.on('data', (chunk) => {
      frames.push(chunk);
      for (const query of frames.takeAll()) {
        handle(query).then((answers) => {
          for (const answer of answers) connection.write(tcpFrame(answer));
        }, logFailure);
      }
    });
  });
  // Stopping must not wait for clients that keep a connection open (silent TCP invites that).
  const stop = (): Promise<void> =>
    new Promise((done) => {
      server.close(() => done());
      for (const connection of connections) connection.destroy();
    });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(53, address, () => resolve({ stop }));
  });
}
