// Port 853 of a server whose DoT is `silent`: connections are taken and never spoken to, so a client
// waits out its own timeout (what a firewall dropping replies, or a wedged TLS stack, costs it).
import { createServer, type Server, type Socket } from 'node:net';

export async function startSilentPorts(addresses: readonly string[], port = 853): Promise<() => Promise<void>> {
  const held = new Set<Socket>();
  const servers: Server[] = await Promise.all(
    addresses.map(
      (address) =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer((socket) => {
            held.add(socket);
            socket.on('error', () => undefined);
            socket.on('close', () => held.delete(socket));
          });
          server.once('error', reject);
          server.listen(port, address, () => resolve(server));
        }),
    ),
  );
  return async () => {
    for (const socket of held) socket.destroy();
    await Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done()))));
  };
}
