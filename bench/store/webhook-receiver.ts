// The receiving end of bench:store's webhook subscription, in its own process so its work is not counted
// as the store's: answers every POST with 204 over HTTPS, on the bench's certificate.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadOrCreateCertificate } from '@app/store/testing';

const tls = await loadOrCreateCertificate({ dataDir: process.argv[2] ?? '.' });
let received = 0;
// Products are created with rising ids, so one subscription's deliveries must arrive with rising ids too.
let lastId = 0;
let outOfOrder = 0;
const server = https.createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 30_000 }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received += 1;
    const id = /"id":(\d+)/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
    if (id !== undefined) {
      if (Number(id) <= lastId) outOfOrder += 1;
      lastId = Math.max(lastId, Number(id));
    }
    response.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('message', (message: unknown) => {
  if (message === 'received') process.send?.({ received, outOfOrder });
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
