// Our own small UDP/TCP server on port 53 of each misbehaving server's addresses (inside the lab's
// namespace). Without TCP, nothing listens on TCP, so connections are refused.
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import type { LabServer, WorldPlan } from '../world/world-plan.ts';
import { forwardTcp, forwardUdp, frame, TcpFrames } from './backend.ts';
import { respond, type Backend, type RootServer } from './misbehaviour.ts';

export interface Responders {
  stop(): Promise<void>;
}

export async function startResponders(servers: LabServer[], plan: WorldPlan): Promise<Responders> {
  const roots: RootServer[] = plan.servers.filter((s) => s.zones.some((z) => z.origin === '.')).map((s) => ({ name: s.name, addresses: s.addresses }));
  const sockets: Socket[] = [];
  const listeners: Server[] = [];
  for (const server of servers) {
    for (const address of server.addresses) {
      const backend: Backend = {
        async ask(query, transport, isTransfer) {
          if (transport === 'tcp') return forwardTcp(address, plan.backendPort, query, isTransfer);
          const reply = await forwardUdp(address, plan.backendPort, query);
          return reply === undefined ? [] : [reply];
        },
      };
      sockets.push(await udpListener(address, (query) => respond(query, 'udp', server.behaviour, backend, roots)));
      if (server.behaviour.tcp) listeners.push(await tcpListener(address, (query) => respond(query, 'tcp', server.behaviour, backend, roots)));
    }
  }
  return {
    async stop() {
      for (const socket of sockets) socket.close();
      await Promise.all(listeners.map((listener) => new Promise((done) => listener.close(done))));
    },
  };
}

type Handler = (query: Uint8Array) => Promise<Uint8Array[]>;

function udpListener(address: string, handle: Handler): Promise<Socket> {
  const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4');
  socket.on('message', (query, peer) => {
    void handle(new Uint8Array(query)).then((answers) => {
      for (const answer of answers) socket.send(answer, peer.port, peer.address);
    });
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, address, () => resolve(socket));
  });
}

function tcpListener(address: string, handle: Handler): Promise<Server> {
  const server = createServer((connection) => {
    const frames = new TcpFrames();
    connection.on('error', () => connection.destroy());
    connection.on('data', (chunk) => {
      for (const query of frames.push(chunk)) {
        void handle(query).then((answers) => {
          for (const answer of answers) connection.write(frame(answer));
        });
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(53, address, () => resolve(server));
  });
}
