// A caller-given URL must not reach the operator's own network: every spelling of a loopback, private or
// metadata address is refused unless the operator listed it, and a name is judged by the address the
// connection actually uses, so one that resolves to loopback when connecting is not connected to.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import https from 'node:https';
import { test } from 'node:test';
import { guardedLookup, hostProblem, NetworkListError, outboundPolicy } from '../src/index.ts';

const strict = outboundPolicy({ refusalEnd: 'not allowed here; list it in THE_SETTING' });
const loopbackAllowed = outboundPolicy({ allowedNetworks: ['127.0.0.0/8', '::1'], refusalEnd: 'not allowed here; list it in THE_SETTING' });

/** Loopback, private and metadata hosts in every spelling the WHATWG URL parser reads as an address. */
const INTERNAL_URLS = [
  'https://127.0.0.1:6379/',
  'https://169.254.169.254/latest/meta-data/',
  'https://2130706433/',
  'https://[::ffff:7f00:1]/',
  'https://[::ffff:169.254.169.254]/',
  'https://017700000001/',
  'https://0x7f000001/',
  'https://0x7f.1/',
  'https://127.1/',
  'https://0/',
  'https://10.1.2.3/',
  'https://192.168.0.1/',
  'https://172.16.5.4/',
  'https://100.64.0.1/',
  'https://[::1]/',
  'https://[fd00::1]/',
  'https://[fe80::1]/',
  'https://[::]/',
  'https://[::127.0.0.1]/',
  'https://[64:ff9b::a9fe:a9fe]/',
  'https://[2002:7f00:1::]/',
  'https://localhost/',
  'https://api.LOCALHOST./',
];

test('every numeric spelling of a loopback, private or metadata address is refused, naming the setting that allows it', () => {
  for (const url of INTERNAL_URLS) {
    const problem = hostProblem(strict, new URL(url));
    assert.ok(problem !== undefined, url);
  }
  assert.match(
    hostProblem(strict, new URL('https://2130706433/')) ?? '',
    /^127\.0\.0\.1 is in a loopback, private or reserved range not allowed here; list it in THE_SETTING$/,
  );
  for (const url of [
    'https://203.0.113.9/',
    'https://[2001:db8::1]/',
    'https://hooks.example.org/',
    'https://127.evil.example/',
    'https://localhost.example/',
  ]) {
    assert.equal(hostProblem(strict, new URL(url)), undefined, `${url} is public, or a name judged when connecting`);
  }
});

test("the operator's list lets exactly its networks through; IPv6 relay spellings of special addresses never", () => {
  assert.equal(hostProblem(loopbackAllowed, new URL('https://127.0.0.1:8443/')), undefined);
  assert.equal(hostProblem(loopbackAllowed, new URL('https://[::ffff:7f00:1]/')), undefined, 'a mapped address is the IPv4 address itself');
  assert.equal(hostProblem(loopbackAllowed, new URL('https://localhost/')), undefined);
  assert.ok(hostProblem(loopbackAllowed, new URL('https://169.254.169.254/')) !== undefined);
  assert.ok(hostProblem(loopbackAllowed, new URL('https://[::127.0.0.1]/')) !== undefined);
  assert.ok(hostProblem(loopbackAllowed, new URL('https://[2002:7f00:1::]/')) !== undefined);
  for (const bad of ['localhost', '10.0.0.0/33', '::1/129', '10.0.0.0/x'])
    assert.throws(() => outboundPolicy({ allowedNetworks: [bad], refusalEnd: '' }), NetworkListError, bad);
});

test('a name that resolves to loopback when connecting is not connected to: the listener sees no connection', async () => {
  let connections = 0;
  const listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const { port } = listener.address() as AddressInfo;
  try {
    const attempt = (lookup: ReturnType<typeof guardedLookup>) =>
      new Promise<string>((resolve) => {
        const request = https.request(`https://localhost:${port}/`, { method: 'POST', lookup, timeout: 5000 }, (response) =>
          resolve(`HTTP ${response.statusCode}`),
        );
        request.on('error', (error) => resolve(error.message));
        request.end();
      });
    assert.match(await attempt(guardedLookup(strict)), /127\.0\.0\.1 is in a loopback, private or reserved range|::1 is in a loopback/);
    assert.equal(connections, 0, 'refused before connecting');
    // The same request with loopback allowed does connect: the refusal above was the guard's.
    await attempt(guardedLookup(loopbackAllowed));
    assert.ok(connections >= 1);
  } finally {
    listener.close();
  }
});
