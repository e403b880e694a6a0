// The webhook soak's receiver: HTTPS on one port, answering 204 to every delivery and noting, for each, the
// subscription (the path), its webhook-id, the write it announces (the product's item_number) and when it came.
// It can be taken down (connections refused) and brought back on the same port.
import https from 'node:https';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  /** The URL path: one per subscription. */
  path: string;
  webhookId: string;
  itemNumber: string | undefined;
  /** performance.now() of this process. */
  at: number;
}

export interface SoakReceiver {
  readonly port: number;
  readonly arrivals: Arrival[];
  readonly up: boolean;
  down(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The item_number of a ProductCreated body (`{"item": {"item_number": ...}}` or `{"product": {...}}`). */
function itemNumberOf(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as Record<string, { item_number?: unknown }>;
    const found = Object.values(json)[0]?.item_number;
    return typeof found === 'string' ? found : undefined;
  } catch {
    return undefined;
  }
}

export async function startSoakReceiver(tls: { key: string; cert: string }, port = 0): Promise<SoakReceiver> {
  const arrivals: Arrival[] = [];
  let server: https.Server | undefined;
  let boundPort = port;
  const start = async () => {
    const started = https.createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 30_000 }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const id = request.headers['webhook-id'];
        arrivals.push({
          path: request.url ?? '/',
          webhookId: typeof id === 'string' ? id : '',
          itemNumber: itemNumberOf(Buffer.concat(chunks).toString('utf8')),
          at: performance.now(),
        });
        response.writeHead(204).end();
      });
    });
    started.listen(boundPort, '127.0.0.1');
    await once(started, 'listening');
    boundPort = (started.address() as AddressInfo).port;
    server = started;
  };
  const down = async () => {
    const running = server;
    server = undefined;
    if (running === undefined) return;
    running.closeAllConnections();
    await new Promise((resolve) => running.close(resolve));
  };
  await start();
  return {
    get port() {
      return boundPort;
    },
    arrivals,
    get up() {
      return server !== undefined;
    },
    down,
    start,
    close: down,
  };
}
