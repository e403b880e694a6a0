// The two servers under load, each in its own process so the load generator does not share its
// event loop: `service` is our RPC API (SQLite by default), `bare` is a Fastify route that only
// parses the JSON body and answers a constant JSON-RPC result (the floor any Fastify API pays).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { createRpcService, loadConfig } from '@app/service';

const kind = process.argv[2];
if (kind === 'bare') {
  const app = Fastify({ logger: false });
  app.post('/*', (request, reply) => {
    const { id } = request.body as { id?: unknown };
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result: 0 }));
  });
  console.log(await app.listen({ host: '127.0.0.1', port: 0 }));
} else if (kind === 'service') {
  const dir = mkdtempSync(join(tmpdir(), 'bench-rpc-'));
  const config = loadConfig({ env: { ...process.env, DATA_DIR: dir } });
  const service = await createRpcService(config);
  console.log(await service.app.listen({ host: '127.0.0.1', port: 0 }));
  console.error(`bench server on ${service.context.database.description}`);
} else {
  console.error('usage: servers.ts bare|service');
  process.exit(2);
}

// A clean exit (so --cpu-prof can write its profile when the bench stops us).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
