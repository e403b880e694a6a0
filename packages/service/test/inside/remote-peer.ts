// Runs inside a private network namespace (started by ../remote-peer.test.ts) whose loopback also
// carries 192.0.2.1 and 192.0.2.2: the same server is called from a loopback and a non-loopback peer.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createRpcService, type RpcService } from '../../src/app.ts';
import { loadConfig } from '../../src/config/service-config.ts';

let service: RpcService;
let port = 0;

function call(host: string, localAddress: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port, localAddress, method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

before(async () => {
  const config = {
    ...loadConfig({ env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'dns-service-peer-')), DNS_SERVICE_LISTEN: '0.0.0.0:0' } }),
    enableAddApiUser: true,
  };
  service = await createRpcService(config);
  await service.app.listen({ host: '0.0.0.0', port: 0 });
  const address = service.app.server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});
after(async () => {
  await service?.close();
});

test('add_api_user from 192.0.2.2 is refused, even when a header claims loopback', async () => {
  const reply = await call(
    '192.0.2.1',
    '192.0.2.2',
    { id: 1, method: 'add_api_user', params: { username: 'remote', api_key: 'k' } },
    { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' },
  );
  assert.deepEqual(reply.error, {
    code: -32603,
    message: 'Call to the method not permitted from a remote IP',
    data: { remote_ip: '192.0.2.2' },
  });
});

test('the same call from 127.0.0.1 is accepted, and unrestricted methods work from anywhere', async () => {
  assert.equal(
    (await call('127.0.0.1', '127.0.0.1', { id: 1, method: 'add_api_user', params: { username: 'local', api_key: 'k' } })).result,
    1,
  );
  assert.deepEqual((await call('192.0.2.1', '192.0.2.2', { id: 2, method: 'profile_names' })).result, ['default', 'extended']);
});
