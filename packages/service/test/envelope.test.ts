// The JSON-RPC envelope and hostile input: always HTTP 200 with a JSON-RPC body, never a crash.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { createDispatcher } from '../src/rpc/envelope.ts';
import { isLoopback } from '../src/methods/batches.ts';
import { writeConfigFixture } from './config-fixture.ts';
import { useService, type Harness } from './rpc-harness.ts';

const iniFile = writeConfigFixture();

function postRaw(h: Harness, body: Uint8Array | string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return h.post(body, headers);
}

for (const target of await testDatabaseTargets()) {
  describe(`JSON-RPC envelope on ${target.name}`, { skip: target.skip }, () => {
    const h = useService(target, (c) => ({ ...c, bodyLimitBytes: 64 * 1024 }), iniFile);
    let keptTest = '';

    test('a test stored before the abuse', async () => {
      keptTest = (await h.call('start_domain_test', { domain: 'kept.example.se' })).result as string;
      assert.match(keptTest, /^[0-9a-f]{16}$/);
    });

    const cases: [name: string, body: string, code: number, message: string, id?: unknown][] = [
      ['not JSON', '{"id":1,', -32700, 'Invalid JSON was received by the server.'],
      ['an empty body', '', -32700, 'Invalid JSON was received by the server.'],
      ['a raw NUL byte', '{"id":1,"method":"profile_names"\u0000}', -32700, 'Invalid JSON was received by the server.'],
      ['a batch array', '[{"id":1,"method":"profile_names"}]', -32600, 'The JSON sent is not a valid request object.'],
      ['a bare string', '"profile_names"', -32600, 'The JSON sent is not a valid request object.'],
      ['null', 'null', -32600, 'The JSON sent is not a valid request object.'],
      ['an id that is an object', '{"id":{"a":1},"method":"profile_names"}', -32600, 'The JSON sent is not a valid request object.'],
      ['an id that is a boolean', '{"id":true,"method":"profile_names"}', -32600, 'The JSON sent is not a valid request object.'],
      ['no method', '{"id":7,"params":{}}', -32601, 'Procedure not found', 7],
      ['an unknown method', '{"id":"x","method":"drop_tables"}', -32601, 'Procedure not found', 'x'],
      ['a method that is not a string', '{"id":8,"method":["profile_names"]}', -32601, 'Procedure not found', 8],
      ['a method named like an object key', '{"id":9,"method":"constructor"}', -32601, 'Procedure not found', 9],
      ['a method named __proto__', '{"id":10,"method":"__proto__"}', -32601, 'Procedure not found', 10],
    ];
    for (const [name, body, code, message, id] of cases) {
      test(`${name} gives ${code}`, async () => {
        const { status, json } = await postRaw(h, body);
        assert.equal(status, 200);
        assert.equal(json.error?.code, code);
        assert.equal(json.error?.message, message);
        assert.equal(json.id, id ?? null);
      });
    }

    test('jsonrpc is not checked and extra top-level keys are ignored; the id comes back as sent', async () => {
      for (const [jsonrpc, id] of [
        [undefined, 'abc'],
        ['1.0', 0],
        [42, -1.5],
        ['2.0', null],
      ] as const) {
        const { json } = await postRaw(h, JSON.stringify({ jsonrpc, id, method: 'profile_names', extra: { deep: [1, 2] }, another: true }));
        assert.deepEqual(json, { jsonrpc: '2.0', id, result: ['default', 'extended', 'ipv4-only'] });
      }
    });

    test('a request without Content-Type application/json is refused as an invalid request', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp']) {
        const { status, json } = await postRaw(h, '{"id":1,"method":"profile_names"}', { 'content-type': type });
        assert.equal(status, 200);
        assert.equal(json.error?.code, -32600, type);
      }
      const { json } = await postRaw(h, '{"id":1,"method":"profile_names"}', { 'content-type': 'application/json; charset=utf-8' });
      assert.deepEqual(json.result, ['default', 'extended', 'ipv4-only']);
    });

    test('any path works; methods other than POST and GET (the web interface) get a JSON-RPC error', async () => {
      const response = await fetch(`${h.url}/some/deep/path?x=1`, {
        method: 'POST',
        body: '{"id":1,"method":"profile_names"}',
        headers: { 'content-type': 'application/json' },
      });
      assert.deepEqual(((await response.json()) as { result: unknown }).result, ['default', 'extended', 'ipv4-only']);
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const other = await fetch(h.url, { method });
        assert.equal(other.status, 200);
        assert.equal(((await other.json()) as { error: { code: number } }).error.code, -32600, method);
      }
    });

    test('a body over the limit is refused with a JSON-RPC error', async () => {
      const big = JSON.stringify({ id: 1, method: 'start_domain_test', params: { domain: 'a'.repeat(200_000) } });
      const { status, json } = await postRaw(h, big);
      assert.equal(status, 200);
      assert.equal(json.error?.code, -32600);
      assert.match(JSON.stringify(json.error?.data), /larger than 65536 bytes/);
    });

    test('deep nesting where a string belongs gives invalid params', async () => {
      const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
      const { json } = await postRaw(h, `{"id":1,"method":"start_domain_test","params":{"domain":${deep}}}`);
      assert.equal(json.error?.code, -32602);
      assert.deepEqual(json.error?.data, [{ path: '/domain', message: 'Expected a string' }]);
      const deepObject = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
      const reply = await postRaw(h, `{"id":2,"method":"test_progress","params":${deepObject}}`);
      assert.equal(reply.json.error?.code, -32602);
    });

    test('arrays where objects belong, and property names that need escaping in JSON Pointers', async () => {
      const { json } = await postRaw(
        h,
        JSON.stringify({ id: 1, method: 'get_test_history', params: { frontend_params: ['a.se'], 'a/b~c': 1 } }),
      );
      assert.deepEqual(json.error?.data, [
        { path: '/a~1b~0c', message: 'Unknown property' },
        { path: '/frontend_params', message: 'Expected an object' },
      ]);
    });

    test('thousands of faults are answered with the first hundred', async () => {
      const params = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
      const { json } = await postRaw(h, JSON.stringify({ id: 1, method: 'profile_names', params }));
      const data = json.error?.data as { path: string }[];
      assert.equal(data.length, 100);
      assert.equal(data[0]?.path, '/k0');
    });

    test('__proto__ in params is an unknown property, not a prototype change', async () => {
      const { json } = await postRaw(h, '{"id":1,"method":"test_progress","params":{"__proto__":{"test_id":"0123456789abcdef"}}}');
      assert.deepEqual(json.error?.data, [
        { path: '/__proto__', message: 'Unknown property' },
        { path: '/test_id', message: 'Missing property' },
      ]);
    });

    test('unicode everywhere: IDNs convert, emoji and lone surrogates are refused by IDNA 2008', async () => {
      const idn = await h.call('start_domain_test', { domain: 'B\u00fccher.example.se' });
      assert.match(String(idn.result), /^[0-9a-f]{16}$/);
      assert.equal(
        ((await h.call('get_test_params', { test_id: idn.result })).result as { domain: string }).domain,
        'xn--bcher-kva.example.se',
      );
      const emoji = await h.call('start_domain_test', { domain: '\u{1F600}.example.se' });
      assert.equal(emoji.error?.code, -32602);
      assert.match((emoji.error?.data as { message: string }[])[0]?.message ?? '', /not a valid internationalized name: .+/);
      for (const domain of ['\uD800.se', '\u202Eevil.se', '\uFFFF.se', 'x\u200Dy.se']) {
        const reply = await h.call('start_domain_test', { domain });
        assert.ok(reply.error?.code === -32602 || typeof reply.result === 'string', JSON.stringify(reply));
      }
      const { json } = await postRaw(h, Buffer.from('{"id":1,"method":"profile_names","x":"\xff\xfe"}', 'latin1'));
      assert.ok(json.result !== undefined || json.error !== undefined);
    });

    test('a forwarded header does not change who the caller is', async () => {
      const { json } = await postRaw(
        h,
        JSON.stringify({ id: 1, method: 'add_api_user', params: { username: 'forwarded', api_key: 'k' } }),
        {
          'content-type': 'application/json',
          'x-forwarded-for': '203.0.113.9',
          forwarded: 'for=203.0.113.9',
        },
      );
      assert.equal(json.result, 1);
    });

    test('a half-sent request does not disturb the server', async () => {
      await new Promise<void>((resolve) => {
        const url = new URL(h.url);
        const req = request({
          host: url.hostname,
          port: url.port,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': '1000' },
        });
        req.on('error', () => resolve());
        req.write('{"id":1,"method":');
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50);
      });
      assert.deepEqual((await h.call('profile_names')).result, ['default', 'extended', 'ipv4-only']);
    });

    test('after all that the server still serves, and the stored test is intact', async () => {
      assert.equal((await h.call('test_progress', { test_id: keptTest })).result, 0);
      assert.equal(((await h.call('get_test_params', { test_id: keptTest })).result as { domain: string }).domain, 'kept.example.se');
    });
  });
}

describe('administrative methods', () => {
  test('loopback is judged by the socket address alone', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.1.2.3']) assert.equal(isLoopback(address), true, address);
    for (const address of ['192.0.2.1', '::ffff:192.0.2.1', '2001:db8::1', '', '0.0.0.0', '::', '127.0.0.1.example'])
      assert.equal(isLoopback(address), false, address);
  });
});

describe('administrative methods from a remote peer', async () => {
  const [sqlite] = await testDatabaseTargets();
  if (sqlite === undefined) return;
  const h = useService(sqlite, (c) => ({ ...c, enableAddApiUser: true }), iniFile);

  test('add_api_user from a non-loopback address is refused before its params are read', async () => {
    const methods = new Map([...['add_api_user'].map((name) => [name, methodOf(h, name)] as const)]);
    const dispatcher = createDispatcher({ methods, languageTags: h.service.context.languageTags, logError: () => undefined });
    for (const params of [{ username: 'remote', api_key: 'k' }, {}]) {
      const reply = await dispatcher.handle({ id: 1, method: 'add_api_user', params }, { remoteAddress: '192.0.2.7' });
      assert.deepEqual(reply, {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: 'Call to the method not permitted from a remote IP', data: { remote_ip: '192.0.2.7' } },
      });
    }
    const users = await h.service.context.database.db.selectFrom('dh_user').select('username').execute();
    assert.deepEqual(users, []);
  });
});

describe('methods disabled by configuration', async () => {
  const [sqlite] = await testDatabaseTargets();
  if (sqlite === undefined) return;
  const h = useService(sqlite, (c) => ({ ...c, enableAddApiUser: false, enableAddBatchJob: false }), iniFile);

  test('add_api_user and add_batch_job are then unknown procedures', async () => {
    for (const [method, params] of [
      ['add_api_user', { username: 'u', api_key: 'k' }],
      ['add_batch_job', { username: 'u', api_key: 'k', domains: ['a.se'] }],
    ] as const) {
      const reply = await h.call(method, params);
      assert.deepEqual(reply.error, { code: -32601, message: 'Procedure not found' });
    }
  });
});

function methodOf(h: Harness, name: string) {
  const found = h.service.methods.get(name);
  assert.ok(found);
  return found;
}
