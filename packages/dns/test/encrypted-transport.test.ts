// DNS over TLS and over HTTPS against BIND's tls and http listeners on loopback, with a CA and
// certificates made here by openssl; and a port that accepts a connection but never speaks.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encryptedQuery, RRType, type SoaData } from '@app/dns';
import { namedMissing, startNamed, type RunningNamed } from './helpers/named.ts';

const zone = `$TTL 300
@ IN SOA ns1.example.test. hostmaster.example.test. 2026112901 7200 3600 1209600 300
@ IN NS ns1
ns1 IN A 192.0.2.53
`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A CA and a leaf for ns1.example.test signed by it, in `dir`. */
function makeCertificates(dir: string): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Test CA');
  openssl('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=ns1.example.test');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:ns1.example.test\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
}

const missing = namedMissing() ?? (spawnSync('openssl', ['version']).error ? 'openssl is not installed' : undefined);
if (missing) console.log(`# skipping the encrypted transport tests: ${missing}`);

describe('DNS over TLS and HTTPS against BIND', { skip: missing }, () => {
  let named: RunningNamed;
  let dot = 0;
  let doh = 0;
  let ca = '';
  before(async () => {
    dot = await freePort();
    doh = await freePort();
    named = await startNamed(
      [{ origin: 'example.test.', text: zone }],
      `listen-on port ${dot} tls lab { 127.0.0.1; }; listen-on port ${doh} tls lab http doh { 127.0.0.1; };`,
      (dir) => {
        makeCertificates(dir);
        return `tls lab { key-file "${dir}/leaf.key"; cert-file "${dir}/leaf.pem"; };\nhttp doh { endpoints { "/dns-query"; }; };`;
      },
    );
    ca = readFileSync(join(named.dir, 'ca.pem'), 'utf8');
  });
  after(() => named?.stop());

  const soa = { name: 'example.test.', type: RRType.SOA };
  const serialOf = (result: Awaited<ReturnType<typeof encryptedQuery>>): number | undefined =>
    result.outcome === 'response' ? (result.message.answer[0]?.rdata as SoaData | undefined)?.serial : undefined;

  test('DoT answers, with TLS 1.3, the dot ALPN and a certificate valid for the name under the CA given', async () => {
    const result = await encryptedQuery({ address: '127.0.0.1', port: dot }, soa, { transport: 'dot', serverName: 'ns1.example.test', ca });
    assert.equal(serialOf(result), 2026112901);
    assert.equal(result.session?.version, 'TLSv1.3');
    assert.equal(result.session?.alpn, 'dot');
    assert.equal(result.session?.authenticated, true);
    assert.deepEqual(result.session?.certificate?.names, ['ns1.example.test']);
    assert.match(result.session?.certificate?.issuer ?? '', /CN=Test CA/);
  });

  test('the same certificate is not valid for another name, nor without the CA', async () => {
    const otherName = await encryptedQuery({ address: '127.0.0.1', port: dot }, soa, {
      transport: 'dot',
      serverName: 'ns2.example.test',
      ca,
    });
    assert.equal(otherName.session?.authenticated, false);
    assert.equal(otherName.session?.authenticationError, 'ERR_TLS_CERT_ALTNAME_INVALID');
    assert.equal(serialOf(otherName), 2026112901, 'the answer still comes: judging the certificate is the caller’s');
    const noCa = await encryptedQuery({ address: '127.0.0.1', port: dot }, soa, { transport: 'dot', serverName: 'ns1.example.test' });
    assert.equal(noCa.session?.authenticated, false);
  });

  test('DoH answers by GET and by POST at /dns-query over HTTP/2', async () => {
    for (const transport of ['doh-get', 'doh-post'] as const) {
      const result = await encryptedQuery({ address: '127.0.0.1', port: doh }, soa, { transport, serverName: 'ns1.example.test', ca });
      assert.equal(serialOf(result), 2026112901, transport);
      assert.equal(result.session?.alpn, 'h2', transport);
    }
    const elsewhere = await encryptedQuery({ address: '127.0.0.1', port: doh }, soa, { transport: 'doh-post', path: '/other', ca });
    assert.equal(elsewhere.outcome, 'network-error');
  });
});

describe('a port that never speaks', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  before(() => {
    silent = createServer((socket) => sockets.push(socket));
    return new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  after(() => {
    sockets.forEach((s) => s.destroy());
    return new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  test('costs the timeout and no more, over DoT and DoH', async () => {
    const port = (silent.address() as { port: number }).port;
    for (const transport of ['dot', 'doh-get'] as const) {
      const started = Date.now();
      const result = await encryptedQuery(
        { address: '127.0.0.1', port },
        { name: 'example.test.', type: RRType.SOA },
        { transport, timeoutMs: 300 },
      );
      const took = Date.now() - started;
      assert.equal(result.outcome, 'timeout', transport);
      assert.equal(result.session, undefined, transport);
      assert.ok(took >= 290 && took < 1500, `${transport}: ${took} ms`);
    }
  });
});

test('a closed port is refused over DoT and DoH alike (ECONNREFUSED, not a cancelled HTTP/2 stream)', async () => {
  const server = createServer();
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const transport of ['dot', 'doh-get', 'doh-post'] as const) {
    const result = await encryptedQuery(
      { address: '127.0.0.1', port },
      { name: 'example.test.', type: RRType.SOA },
      { transport, timeoutMs: 2000 },
    );
    assert.equal(result.outcome, 'network-error', transport);
    assert.equal(result.outcome === 'network-error' && (result.error as NodeJS.ErrnoException).code, 'ECONNREFUSED', transport);
  }
});
