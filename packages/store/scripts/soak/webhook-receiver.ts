// The webhook soak's receiver, run as its own process (receiver-process.ts starts it): HTTPS on one port, answering
// 204 to every delivery and noting, for each, the subscription (the path), its webhook-id, the write it announces
// (the product's item_number) and when it came. It can be taken down (connections refused) and brought back on the
// same port.
import https from 'node:https';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  /** The URL path: one per subscription. */
  path: string;
  webhookId: string;
  itemNumber: string | undefined;
  /** Milliseconds since the epoch, to the microsecond (performance.timeOrigin + performance.now()). */
  at: number;
}

export type ReceiverCommand =
  { kind: 'start'; tls: { key: string; cert: string }; port: number } | { kind: 'down' } | { kind: 'distinct' } | { kind: 'arrivals' };

export type ReceiverReply =
  | { kind: 'listening'; port: number }
  | { kind: 'down' }
  | { kind: 'distinct'; paths: Record<string, number> }
  | { kind: 'arrivals'; arrivals: Arrival[] };

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

const arrivals: Arrival[] = [];
const seen = new Map<string, Set<string>>();
let server: https.Server | undefined;
const tell = (reply: ReceiverReply) => process.send?.(reply);

async function start(tls: { key: string; cert: string }, port: number): Promise<number> {
  const started = https.createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 30_000 }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = request.headers['webhook-id'];
      const path = request.url ?? '/';
      const itemNumber = itemNumberOf(Buffer.concat(chunks).toString('utf8'));
      arrivals.push({ path, webhookId: typeof id === 'string' ? id : '', itemNumber, at: performance.timeOrigin + performance.now() });
      if (itemNumber !== undefined) {
        const items = seen.get(path) ?? new Set<string>();
        items.add(itemNumber);
        seen.set(path, items);
      }
      response.writeHead(204).end();
    });
  });
  started.listen(port, '127.0.0.1');
  await once(started, 'listening');
  server = started;
  return (started.address() as AddressInfo).port;
}

async function down(): Promise<void> {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
}

process.on('message', (command: ReceiverCommand) => {
  if (command.kind === 'start') void start(command.tls, command.port).then((port) => tell({ kind: 'listening', port }));
  if (command.kind === 'down') void down().then(() => tell({ kind: 'down' }));
  if (command.kind === 'distinct')
    tell({ kind: 'distinct', paths: Object.fromEntries([...seen].map(([path, items]) => [path, items.size])) });
  if (command.kind === 'arrivals') tell({ kind: 'arrivals', arrivals });
});
process.on('disconnect', () => void down().then(() => process.exit(0)));
