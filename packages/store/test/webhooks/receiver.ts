// A real HTTPS webhook receiver on loopback, with a self-signed certificate the store is told to trust.
// Each path answers as the test scripts it; every request is recorded.
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: unknown;
}

export interface Answer {
  status?: number;
  body?: unknown;
  /** Wait this long before answering (longer than the store's limit: a timeout). */
  delayMs?: number;
}

export interface Receiver {
  /** https://127.0.0.1:<port> */
  origin: string;
  port: number;
  ca: string;
  received: Received[];
  /** How a path answers: a fixed answer, or one per request in turn (the last repeats). */
  answer(path: string, ...answers: Answer[]): void;
  /** Resolves once `count` requests to `path` have arrived. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export interface ReceiverTls {
  private: string;
  cert: string;
}

export function receiverCertificate(): Promise<ReceiverTls> {
  return generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
}

/** `port` and `tls` let a test bring the same receiver back after it was down. */
export async function startReceiver(options: { port?: number; tls?: ReceiverTls } = {}): Promise<Receiver> {
  const pems = options.tls ?? (await receiverCertificate());
  const received: Received[] = [];
  const scripts = new Map<string, Answer[]>();
  const waiters = new Set<() => void>();
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const script = scripts.get(path) ?? [];
      const answer = (script.length > 1 ? script.shift() : script[0]) ?? {};
      const reply = () => {
        if (response.destroyed) return;
        response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        response.end(answer.body === undefined ? '{}' : JSON.stringify(answer.body));
      };
      received.push({ path, headers: request.headers, body, json });
      for (const wake of waiters) wake();
      if (answer.delayMs === undefined) reply();
      else setTimeout(reply, answer.delayMs).unref();
    });
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    ca: pems.cert,
    received,
    answer(path, ...answers) {
      scripts.set(path, answers);
    },
    waitFor(path, count, timeoutMs = 15_000) {
      const matching = () => received.filter((r) => r.path === path);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (matching().length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${path}: ${matching().length} of ${count} requests arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
