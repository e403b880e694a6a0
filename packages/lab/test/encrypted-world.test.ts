// Encrypted transports in a lab world: who serves them (BIND and NSD themselves, dnsdist for the
// others), the listeners each configuration gets, and the certificates the lab's CA makes.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadScenario, ScenarioError } from '../src/index.ts';
import { bindConfig } from '../src/world/bind-config.ts';
import { dnsdistConfig } from '../src/world/dnsdist-config.ts';
import { nsdConfig } from '../src/world/nsd-config.ts';
import { makeLabCertificates } from '../src/world/tls-certificates.ts';
import type { LabServer } from '../src/world/world-plan.ts';

const root = `
  - origin: .
    servers: [a.root.test.]
    text: "@ SOA a.root.test. h.root.test. 1 2 3 4 5\\n@ NS a.root.test."
`;

function load(servers: string): ReturnType<typeof loadScenario> {
  const dir = mkdtempSync(join(tmpdir(), 'lab-encrypted-'));
  const path = join(dir, 'world.yaml');
  writeFileSync(path, `servers:\n  - name: a.root.test.\n    addresses: [198.51.100.1]\n${servers}\nzones:${root}`);
  try {
    return loadScenario(path);
  } finally {
    rmSync(dir, { recursive: true });
  }
}

const server = (encrypted: LabServer['encrypted'], implementation: LabServer['implementation'] = 'bind'): LabServer =>
  ({
    name: 'ns1.x.test.',
    addresses: ['192.0.2.1', '2001:db8::1'],
    implementation,
    engine: 'bind',
    behaviour: {},
    zones: [],
    encrypted,
  }) as unknown as LabServer;

test('Knot DNS and PowerDNS get dnsdist in front; asking them to serve TLS themselves is refused with the reason', () => {
  const world = load(`  - name: ns1.x.test.
    implementation: knot
    addresses: [192.0.2.1]
    encrypted: { dot: true }`);
  assert.equal(world.servers.find((s) => s.name === 'ns1.x.test.')?.encrypted?.front, 'auto');
  assert.throws(
    () =>
      load(`  - name: ns1.x.test.
    implementation: nsd
    addresses: [192.0.2.1]
    encrypted: { doh: true, front: native }
  - name: ns2.x.test.
    addresses: [192.0.2.2]
    encrypted: { backend: nobody.x.test. }`),
    (error: Error) => {
      assert.ok(error instanceof ScenarioError);
      assert.match(error.message, /nsd cannot serve DNS over HTTPS itself \(front: dnsdist can\)/);
      assert.match(error.message, /encrypted\.backend names unknown server nobody\.x\.test\./);
      return true;
    },
  );
});

test('BIND listens for DoT on 853 and DoH on 443 with the server’s own certificate; silent DoT opens no BIND listener', () => {
  const tls = new Map([['ns1.x.test.', { cert: '/c.pem', key: '/c.key' }]]);
  const both = bindConfig({
    dir: '/d',
    hintsPath: '/h',
    servers: [server({ dot: true, doh: true, certificate: 'valid', front: 'native' })],
    chaosZoneFiles: {},
    tls,
  });
  assert.match(both, /tls "lab-0" \{ key-file "\/c\.key"; cert-file "\/c\.pem"; \};/);
  assert.match(both, /listen-on port 853 tls "lab-0" \{ 192\.0\.2\.1; \};/);
  assert.match(both, /listen-on-v6 port 443 tls "lab-0" http "lab-doh" \{ 2001:db8::1; \};/);
  assert.match(both, /http "lab-doh" \{ endpoints \{ "\/dns-query"; \}; \};/);
  const silent = bindConfig({
    dir: '/d',
    hintsPath: '/h',
    servers: [server({ dot: 'silent', doh: false, certificate: 'valid', front: 'native' })],
    chaosZoneFiles: {},
    tls,
  });
  assert.doesNotMatch(silent, /port 853/);
});

test('NSD serves DoT on an extra 853 socket per address; dnsdist fronts a backend of the scenario’s choice', () => {
  const files = { cert: '/c.pem', key: '/c.key' };
  const nsd = nsdConfig(server({ dot: true, doh: false, certificate: 'valid', front: 'native' }, 'nsd'), '/d', 53, files);
  assert.match(nsd, /ip-address: 2001:db8::1@853/);
  assert.match(nsd, /tls-service-pem: "\/c\.pem"/);
  const dnsdist = dnsdistConfig(server({ dot: true, doh: true, certificate: 'valid', front: 'dnsdist' }, 'knot'), files, '2001:db8::f0');
  assert.match(dnsdist, /newServer\(\{address="\[2001:db8::f0\]:53"\}\)/);
  assert.match(dnsdist, /addTLSLocal\("192\.0\.2\.1:853", "\/c\.pem", "\/c\.key"\)/);
  assert.match(dnsdist, /addDOHLocal\("\[2001:db8::1\]:443", "\/c\.pem", "\/c\.key", "\/dns-query"\)/);
});

test('the lab CA signs valid, expired and wrong-name certificates; a self-signed one is its own issuer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-tls-'));
  try {
    const kinds = ['valid', 'expired', 'wrong-name', 'self-signed'] as const;
    const servers = kinds.map((certificate, i) => ({
      ...server({ dot: true, doh: false, certificate, front: 'native' }),
      name: `ns${i}.x.test.`,
    }));
    const made = await makeLabCertificates(servers, dir);
    assert.ok(made);
    const ca = new X509Certificate(readFileSync(made.caPath));
    const cert = (i: number) => new X509Certificate(readFileSync(made.files.get(`ns${i}.x.test.`)!.cert));
    const now = Date.now();
    assert.ok(cert(0).verify(ca.publicKey) && cert(0).checkHost('ns0.x.test') && Date.parse(cert(0).validTo) > now);
    assert.ok(cert(1).verify(ca.publicKey) && Date.parse(cert(1).validTo) < now, 'expired');
    assert.ok(cert(2).verify(ca.publicKey) && cert(2).checkHost('ns2.x.test') === undefined, 'for another name');
    assert.ok(!cert(3).verify(ca.publicKey) && cert(3).issuer === cert(3).subject, 'self-signed');
    assert.equal(await makeLabCertificates([server(undefined)], dir), undefined, 'no CA without a server that needs one');
  } finally {
    rmSync(dir, { recursive: true });
  }
});
