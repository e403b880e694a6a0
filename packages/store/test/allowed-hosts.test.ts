/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// The Host header is the origin of every absolute URL the store gives out (next_page, previous_page, Link, an event
// log's next link, a bulk job's result_url, the HTTPS redirect). A Host the store was not configured for, or one that
// is no host name at all, is refused before anything else runs, so no answer ever carries a link to someone else's
// address or a second link injected into Link. Host handling does not touch the database: SQLite only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:tls';
import { Agent, request } from 'undici';
import { answersTo, hostNames, parseHost } from '../src/http/allowed-hosts.ts';
import { plainGet } from './support/plain-get.ts';
import { sqliteTarget } from './support/targets.ts';
import { replyOf, startStoreUnderTest, type Reply, type StoreUnderTest } from './support/store-under-test.ts';
import { issueTestToken } from './support/test-token.ts';

const sqlite = await sqliteTarget();

/** Every header and the body: none may name a host the store does not answer to. */
function carriesNo(reply: Reply, needle: RegExp): void {
  for (const [name, value] of Object.entries(reply.headers)) assert.doesNotMatch(String(value), needle, `${name}: ${String(value)}`);
  assert.doesNotMatch(reply.text, needle);
}

describe('the host names the store answers to', () => {
  let s: StoreUnderTest;
  let origin: string;
  let port: number;
  let jobId: number;
  let dispatcher: Agent;
  /** A call naming `host` in Host (the TLS name checked is the address's, whatever Host says). */
  const callAs = async (host: string, path: string): Promise<Reply> => {
    return replyOf(
      await request(`${path.startsWith('/admin') || path === '/' ? origin : s.api}${path}`, {
        headers: { host, 'x-ac-auth-token': token },
        dispatcher,
      }),
    );
  };
  let token: string;
  before(async () => {
    s = await startStoreUnderTest(sqlite, { httpPort: 0, allowedHosts: ['shop.example', 'API.Shop.Example.'] });
    origin = new URL(s.api).origin;
    port = s.store.port;
    dispatcher = new Agent({ connect: { ca: s.store.certificate, checkServerIdentity: () => undefined } });
    token = await issueTestToken(s.store.app, s.store.firstStart?.storeId ?? 1);
    for (let i = 0; i < 3; i++) await s.call('POST', '/products', { body: { item_name: `Linked ${i}` } });
    const job = await s.call('POST', '/bulk_operations', { body: { type: 'export', resource: 'products', query: '' } });
    jobId = Number(job.json.id);
    for (let i = 0; i < 100 && (await s.call('GET', `/bulk_operations/${jobId}`)).json.state !== 'completed'; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
  });
  after(async () => {
    await dispatcher?.close();
    await s?.close();
  });

  // Every place an answer holds an absolute URL made from the request's host.
  const linking = [
    '/products?count=1',
    '/products?count=1&page=2',
    '/products/1/categories?count=1',
    '/events?count=1',
    '/bulk_operations/JOB',
  ];
  const paths = () => linking.map((path) => path.replace('JOB', String(jobId)));

  test('a Host that injects a second link, or is no host name, is a 400 with no link anywhere', async () => {
    for (const host of [
      '127.0.0.1>; rel="prev", <https://evil.example/x',
      `127.0.0.1:${port}>; rel="prev", <https://evil.example/x`,
      `evil.example@127.0.0.1:${port}`,
      `127.0.0.1:${port}/evil`,
      '127.0.0.1:99999',
      `127.0.0.1:${port}, evil.example`,
    ]) {
      for (const path of [...paths(), '/admin', '/']) {
        const reply = await callAs(host, path);
        assert.equal(reply.status, 400, `${host} ${path}: ${reply.status} ${JSON.stringify(reply.headers)} ${reply.text}`);
        // In the format of the part answering: the store's error body, an HTML page in the console.
        if (!path.startsWith('/admin'))
          assert.deepEqual(
            Object.keys(reply.json ?? { text: reply.text }).sort(),
            ['details', 'message', 'status_code'],
            `${host} ${path}: ${reply.text}`,
          );
        assert.equal(reply.headers.link, undefined);
        carriesNo(reply, /evil/);
      }
    }
  });

  test('a host name the store was not configured for is a 421: no answer links to it', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      'EVIL.example',
      'shop.example.evil.example',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      '10.1.2.3',
      '[::ffff:10.1.2.3]',
      'example',
    ]) {
      for (const path of [...paths(), '/admin/sign-in', '/']) {
        const reply = await callAs(host, path);
        assert.equal(reply.status, 421, `${host} ${path}: ${JSON.stringify(reply.headers)} ${reply.text}`);
        if (!path.startsWith('/admin')) assert.match(reply.text, /STORE_ALLOWED_HOSTS/, `${host} ${path}: ${reply.text}`);
        carriesNo(reply, /evil|nip\.io|10\.1\.2\.3/);
      }
    }
    // X-Forwarded-Host counts only from a trusted proxy (none here): the links keep the address asked.
    const forwarded = await s.call('GET', '/products?count=1', { headers: { 'x-forwarded-host': 'evil.example' } });
    assert.equal(forwarded.status, 200, forwarded.text);
    assert.equal(new URL(forwarded.json.next_page).origin, origin);
  });

  test('the listen address, loopback names and configured names are answered, and links are built from them', async () => {
    const cases: [string, string][] = [
      [`127.0.0.1:${port}`, `https://127.0.0.1:${port}`],
      [`localhost:${port}`, `https://localhost:${port}`],
      [`LocalHost.:${port}`, `https://localhost:${port}`],
      [`shop.example:${port}`, `https://shop.example:${port}`],
      [`SHOP.example.:${port}`, `https://shop.example:${port}`],
      ['api.shop.example', 'https://api.shop.example'],
    ];
    for (const [host, expected] of cases) {
      const list = await callAs(host, '/products?count=1');
      assert.equal(list.status, 200, `${host}: ${list.text}`);
      assert.equal(new URL(list.json.next_page).origin, expected);
      assert.equal(list.headers.link, `<${list.json.next_page}>; rel="next"`);
      const events = await callAs(host, '/events?count=1');
      assert.match(String(events.headers.link), new RegExp(`^<${expected.replaceAll('.', '\\.')}/api/v1/events\\?`));
      const job = await callAs(host, `/bulk_operations/${jobId}`);
      assert.equal(new URL(job.json.result_url).origin, expected, job.text);
    }
  });

  test('an HTTP/1.0 request naming no host (as a load balancer health check may) is answered, with links to the address it came to', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca: s.store.certificate, servername: 'localhost' }, () => {
        socket.write(`GET /api/v1/products?count=1 HTTP/1.0\r\nX-AC-Auth-Token: ${token}\r\n\r\n`);
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, new RegExp(`"next_page":"https://127\\.0\\.0\\.1:${port}/api/v1/products\\?`));
  });

  test('plain HTTP redirects only to a host the store answers to', async () => {
    const httpPort = s.store.httpPort ?? 0;
    const fine = await plainGet(httpPort, '/api/v1/products', { host: `shop.example:${httpPort}` });
    assert.equal(fine.status, 308);
    assert.equal(fine.location, `https://shop.example:${port}/api/v1/products`);
    for (const host of ['evil.example', `evil.example:${httpPort}`, '127.0.0.1>; rel="prev", <https://evil.example/x']) {
      const refused = await plainGet(httpPort, '/api/v1/products', { host });
      assert.ok(refused.status === 421 || refused.status === 400, `${host}: ${refused.status}`);
      assert.equal(refused.location, undefined);
      assert.doesNotMatch(refused.body, /evil/);
    }
  });

  test('which names a connection may use, by where the store listens and where the connection arrived', () => {
    const rules = (listenHost: string, names: string[] = []) => ({ listenHost, names });
    assert.ok(answersTo('localhost', rules('127.0.0.1'), '127.0.0.1'));
    assert.ok(answersTo('127.0.0.2', rules('127.0.0.1'), '127.0.0.1'));
    assert.ok(answersTo('::1', rules('::1'), '::1'));
    // Listening on every address: the address the connection came to, and loopback names over loopback only.
    assert.ok(answersTo('192.0.2.7', rules('0.0.0.0'), '192.0.2.7'));
    assert.ok(answersTo('192.0.2.7', rules('::'), '::ffff:192.0.2.7'));
    assert.ok(!answersTo('192.0.2.8', rules('0.0.0.0'), '192.0.2.7'));
    assert.ok(!answersTo('localhost', rules('0.0.0.0'), '192.0.2.7'));
    assert.ok(!answersTo('store.example', rules('0.0.0.0'), '192.0.2.7'));
    assert.ok(answersTo('store.example', rules('0.0.0.0', ['store.example']), '192.0.2.7'));
    // Listening on one address: that one, not localhost.
    assert.ok(answersTo('192.0.2.7', rules('192.0.2.7'), '192.0.2.7'));
    assert.ok(!answersTo('localhost', rules('192.0.2.7'), '192.0.2.7'));
    assert.throws(
      () => hostNames(['https://shop.example'], 'STORE_ALLOWED_HOSTS'),
      /STORE_ALLOWED_HOSTS: "https:\/\/shop\.example" is not a host name/,
    );
    assert.throws(() => hostNames(['shop.example:443'], 'STORE_ALLOWED_HOSTS'), /not a host name/);
    assert.deepEqual(hostNames(['Shop.Example.', '[::1]'], 'x'), ['shop.example', '::1']);
    // Values an HTTP client would not even send.
    for (const value of ['[::1', '[evil.example]', '', ':443', '.', 'a b', 'evil.example:0'])
      assert.equal(parseHost(value), undefined, value);
  });
});
