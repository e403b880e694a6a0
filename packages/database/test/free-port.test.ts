// freePort: a port a server can be started on right after, and not one some server holds.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { freePort } from '../src/testing.ts';

test('freePort gives a port of 127.0.0.1 a server can listen on next', async () => {
  const port = await freePort();
  assert.ok(Number.isInteger(port) && port > 0 && port < 65536, `not a TCP port: ${port}`);
  const server = createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  assert.deepEqual(server.address(), { address: '127.0.0.1', family: 'IPv4', port });
  server.close();
  await once(server, 'close');
});

test('freePort never gives a port a server is listening on', async () => {
  const held = createServer();
  held.listen(0, '127.0.0.1');
  await once(held, 'listening');
  const { port: taken } = held.address() as { port: number };
  try {
    for (let i = 0; i < 20; i += 1) assert.notEqual(await freePort(), taken);
  } finally {
    held.close();
  }
});
