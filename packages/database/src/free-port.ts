// A TCP port of 127.0.0.1 that nobody listens on now, for a server a test or a script starts next.
// Written once here so the store's scripts and tests reach it through @app/database/testing.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('the probe server has no TCP port')),
      );
    });
  });
}
