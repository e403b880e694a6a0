// A byte pipe between two stream endpoints. The lab uses two back to back to reach a TCP port inside
// its namespace from the host: host TCP -> Unix socket (file system, shared) -> TCP inside.
import { connect, createServer, type ListenOptions, type NetConnectOpts, type Server } from 'node:net';

export function bridge(listen: ListenOptions, target: NetConnectOpts): Promise<Server> {
  const server = createServer((incoming) => {
    const outgoing = connect(target);
    incoming.pipe(outgoing).pipe(incoming);
    const close = (): void => {
      incoming.destroy();
      outgoing.destroy();
    };
    incoming.on('error', close);
    outgoing.on('error', close);
    incoming.on('close', close);
    outgoing.on('close', close);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen, () => resolve(server));
  });
}
