// Scenario files: what is accepted, what is refused with a clear reason, and the catalogue loads.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { catalogueNames, loadScenario, parseScenarioText, ScenarioError } from '../src/index.ts';
import { spoilDs, parentOrigin } from '../src/world/delegation.ts';
import { removeSignatures, spoilSignatures } from '../src/world/dnssec-extras.ts';
import { signatureTime } from '../src/world/signature-time.ts';
import { reverseName } from '../src/world/reverse-names.ts';
import { bindConfig } from '../src/world/bind-config.ts';
import { knotConfig } from '../src/world/knot-config.ts';
import { nsdConfig } from '../src/world/nsd-config.ts';
import { powerdnsSetup } from '../src/world/powerdns-config.ts';

const root = `
servers:
  - name: a.root.test
    addresses: [198.51.100.1]
zones:
  - origin: .
    servers: [a.root.test.]
    text: "@ SOA a.root.test. h.root.test. 1 2 3 4 5\\n@ NS a.root.test."
`;

test('a YAML scenario parses with defaults filled in and names made absolute', () => {
  const file = parseScenarioText(root, 'x.yaml');
  assert.equal(file.servers[0]?.name, 'a.root.test.');
  assert.deepEqual(file.servers[0]?.aliases, []);
  assert.deepEqual(file.servers[0]?.behaviour, {
    tcp: true,
    udp: true,
    drop: [],
    dropOver: 'both',
    onlyTypes: [],
    extraSoa: false,
    empty: [],
    aa: true,
    upwardReferral: false,
    edns: 'supported',
    truncate: false,
    qnameCase: 'kept',
    unknownOption: 'ignored',
    ednsZ: 'cleared',
    // The header and EDNS handling the compliance tests look at: as a well-behaved server.
    headerEcho: [],
    flagsRefused: [],
    rd: 'kept',
    unknownOpcode: 'notimp',
    udpSize: 'honoured',
    clearFlags: [],
    knownOptions: {},
    cookie: 'server',
    recursion: false,
    axfr: false,
    stripRrsigs: [],
    stripRecords: [],
    versionAnswer: 'bind',
  });
  assert.equal(file.zones[0]?.delegated, true);
});

test('JSON scenarios are accepted too', () => {
  const file = parseScenarioText(JSON.stringify({ domain: 'x.test', servers: [], zones: [] }), 'x.json');
  assert.equal(file.domain, 'x.test.');
});

test('addresses outside the documentation ranges are refused, naming the field', () => {
  const bad = root.replace('198.51.100.1', '8.8.8.8');
  assert.throws(
    () => parseScenarioText(bad, 'bad.yaml'),
    (error: Error) => {
      assert.ok(error instanceof ScenarioError);
      assert.match(error.message, /bad\.yaml/);
      assert.match(error.message, /servers\.0\.addresses\.0: must be an address from 192\.0\.2\.0\/24/);
      return true;
    },
  );
  assert.throws(() => parseScenarioText(root.replace('198.51.100.1', '2001:db9::1'), 'bad.yaml'), /addresses\.0/);
});

test('unknown fields and misbehaviours are refused', () => {
  assert.throws(
    () => parseScenarioText(root.replace('addresses:', 'behaviour: { tcp: false, shout: true }\n    addresses:'), 's.yaml'),
    /shout/,
  );
  assert.throws(() => parseScenarioText(root.replace('addresses:', 'behaviour: { edns: sometimes }\n    addresses:'), 's.yaml'), /edns/);
  assert.throws(() => parseScenarioText('servers: [', 's.yaml'), /not valid YAML/);
});

test('the catalogue loads, each scenario builds a world from the root down with a domain under test', () => {
  const names = catalogueNames();
  assert.ok(names.length >= 10);
  for (const name of names) {
    const scenario = loadScenario(name);
    assert.ok(
      scenario.zones.some((z) => z.origin === '.'),
      `${name} has a root`,
    );
    assert.ok(
      scenario.zones.some((z) => z.origin === 'test.'),
      `${name} has the TLD`,
    );
    assert.equal(scenario.domains.length, 1, `${name} names its domain`);
  }
  const all = loadScenario(names);
  assert.equal(all.domains.length, names.length, 'the catalogue merges into one world (base once)');
});

test('a world that does not hang together is refused with every problem listed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-scenario-'));
  const path = join(dir, 'broken.yaml');
  writeFileSync(
    path,
    `
servers:
  - name: ns1.x.test.
    addresses: [192.0.2.1]
    aliases: [ns2.x.test.]
  - name: ns2.x.test.
    addresses: [192.0.2.1]
    behaviour: { recursion: true, tcp: false }
zones:
  - origin: x.test.
    servers: [nobody.test.]
    text: "@ SOA a b 1 2 3 4 5"
`,
  );
  try {
    assert.throws(
      () => loadScenario(path),
      (error: Error) => {
        assert.ok(error instanceof ScenarioError);
        assert.match(error.message, /address 192\.0\.2\.1 belongs to both ns1\.x\.test\. and ns2\.x\.test\./);
        assert.match(error.message, /open recursion is played by BIND/);
        assert.match(error.message, /zone x\.test\. names unknown server nobody\.test\./);
        assert.match(error.message, /there is no root zone/);
        assert.match(error.message, /alias ns2\.x\.test\. of ns1\.x\.test\. names another server too/);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true });
  }
  assert.throws(() => loadScenario('/nonexistent/nope.yaml'), /not found/);
  assert.throws(
    () => loadScenario('no-such-scenario'),
    /unknown scenario "no-such-scenario"; the catalogue has: (?:[a-z0-9-]+, )*healthy-signed, /,
  );
});

test('signature times: relative to now, or absolute', () => {
  const now = new Date('2026-01-31T12:00:00Z');
  assert.equal(signatureTime('-30d', now), '20260101120000');
  assert.equal(signatureTime('+2h', now), '20260131140000');
  assert.equal(signatureTime('0', now), '20260131120000');
  assert.equal(signatureTime('20200101000000', now), '20200101000000');
});

test('a spoilt DS keeps its shape but changes what it says', () => {
  const ds = 'x.test. IN DS 5810 13 2 BC020BB4D34E0B164F326EF88292E696143BC62DE5D8694668935109 4124EDD5';
  const digest = spoilDs(ds, 'wrong-digest').split(' ');
  assert.equal(digest[3], '5810');
  assert.notEqual(digest[6], 'BC020BB4D34E0B164F326EF88292E696143BC62DE5D86946689351094124EDD5');
  assert.equal(digest[6]?.length, 64);
  assert.equal(spoilDs(ds, 'wrong-keytag').split(' ')[3], '5811');
});

test('dnssec options: defaults, and DNSKEY and DS rdata checked for shape', () => {
  const zone = (dnssec: string): string => `${root}\n  - origin: x.\n    servers: [a.root.test.]\n    text: ""\n    dnssec: ${dnssec}\n`;
  const dnssec = parseScenarioText(zone('{}'), 'd.yaml').zones[1]?.dnssec;
  assert.deepEqual([dnssec?.sep, dnssec?.extraDnskeys, dnssec?.extraDs, dnssec?.removeRrsigs, dnssec?.spoilRrsigs], [true, [], [], [], []]);
  const spoilt = parseScenarioText(zone('{ spoilRrsigs: [{ type: soa }], extraDnskeys: [{ rdata: "257 3 253 AAEC" }] }'), 'd.yaml').zones[1]
    ?.dnssec;
  assert.deepEqual(spoilt?.spoilRrsigs, [{ type: 'SOA', spoil: 'signature' }]);
  assert.deepEqual(spoilt?.extraDnskeys, [{ rdata: '257 3 253 AAEC', ds: false }]);
  assert.throws(() => parseScenarioText(zone('{ extraDs: ["12345 13 2 not-hex"] }'), 'd.yaml'), /extraDs\.0: must be DS rdata/);
  assert.throws(() => parseScenarioText(zone('{ extraDnskeys: [{ rdata: "257 3" }] }'), 'd.yaml'), /must be DNSKEY rdata/);
  assert.throws(() => parseScenarioText(zone('{ removeRrsigs: [{ type: SOA, signer: parent }] }'), 'd.yaml'), /signer/);
});

test('RRSIGs picked by type, owner, algorithm or signer are removed or spoilt; a rule that picks nothing is an error', () => {
  const signed = [
    'x.test.\t3600\tIN DNSKEY\t257 3 13 9mrN/4Lc51a287io4nu/wZpdE/hzH9fYGFMwqTqj6agwbrgGTkVC3r6hnIjtZHSv8PA9v9ZhON5gbiLVe8EIrQ==',
    'x.test.\t3600\tIN RRSIG\tSOA 13 2 3600 20300101000000 20200101000000 111 x.test. AAECAw==',
    'x.test.\t3600\tIN RRSIG\tSOA 15 2 3600 20300101000000 20200101000000 222 x.test. AAECAw==',
    'www.x.test.\t3600\tIN RRSIG\tA 13 3 3600 20300101000000 20200101000000 111 x.test. AAEC Aw==',
    'mail.x.test.\t3600\tIN RRSIG\tA 13 3 3600 20300101000000 20200101000000 111 x.test. AAECAw==',
  ].join('\n');
  const tags = { ksk: [10134], zsk: [111] };
  const left = (text: string): string[] =>
    text
      .split('\n')
      .filter((l) => l.includes('RRSIG'))
      .map((l) =>
        l
          .split(/\s+/)
          .slice(0, 6)
          .join(' ')
          .replace(/ IN RRSIG/, ''),
      );
  assert.deepEqual(
    left(
      removeSignatures(
        signed,
        'x.test.',
        [
          { type: 'SOA', algorithm: 15 },
          { type: 'A', owner: 'www' },
        ],
        tags,
      ),
    ),
    ['x.test. 3600 SOA 13', 'mail.x.test. 3600 A 13'],
  );
  assert.deepEqual(left(removeSignatures(signed, 'x.test.', [{ type: 'A', signer: 'zsk' }], tags)), [
    'x.test. 3600 SOA 13',
    'x.test. 3600 SOA 15',
  ]);
  assert.throws(() => removeSignatures(signed, 'x.test.', [{ type: 'A', signer: 'ksk' }], tags), /no RRSIG matches/);

  const spoilt = spoilSignatures(
    signed,
    'x.test.',
    [
      { type: 'A', owner: 'www', spoil: 'signature' },
      { type: 'SOA', algorithm: 13, spoil: 'keytag' },
    ],
    tags,
  ).split('\n');
  assert.match(spoilt[3], / 111 x\.test\. \/wECAw==$/);
  assert.match(spoilt[1], / 112 x\.test\. AAECAw==$/);
  assert.equal(spoilt[2], signed.split('\n')[2]);
  // 10135 follows 10134, and 10134 is the DNSKEY's own tag: a spoilt key tag never lands on a published key.
  assert.match(
    spoilSignatures(signed.replace(/ 222 /, ' 10133 '), 'x.test.', [{ type: 'SOA', algorithm: 15, spoil: 'keytag' }], tags).split('\n')[2],
    / 10135 x\.test\. /,
  );
});

test('reverse names for IPv4 and IPv6 addresses', () => {
  assert.equal(reverseName('192.0.2.10'), '10.2.0.192.in-addr.arpa.');
  assert.equal(reverseName('2001:db8:10::1'), '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1.0.0.8.b.d.0.1.0.0.2.ip6.arpa.');
  assert.equal(reverseName('2001:DB8:0:0:1:2:3:4'), '4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.');
});

test('parent zones are the closest enclosing origin', () => {
  const origins = ['.', 'test.', 'a.test.'];
  assert.equal(parentOrigin('a.test.', origins), 'test.');
  assert.equal(parentOrigin('b.a.test.', origins), 'a.test.');
  assert.equal(parentOrigin('test.', origins), '.');
  assert.equal(parentOrigin('.', origins), undefined);
});

test('BIND config: one view per server matched by destination, transfers closed unless allowed', () => {
  const behaviour = parseScenarioText(root, 'x.yaml').servers[0].behaviour;
  const config = bindConfig({
    dir: '/tmp/x',
    hintsPath: '/tmp/x/root.hints',
    chaosZoneFiles: { 'b.test.': '/tmp/x/chaos.zone' },
    servers: [
      {
        name: 'a.test.',
        addresses: ['192.0.2.1'],
        implementation: 'bind',
        engine: 'bind',
        behaviour,
        zones: [{ origin: 'a.test.', file: '/tmp/x/a.db' }],
      },
      {
        name: 'b.test.',
        addresses: ['192.0.2.2', '2001:db8::2'],
        implementation: 'bind',
        engine: 'responder',
        behaviour: { ...behaviour, axfr: true, recursion: true, version: 'v' },
        zones: [],
      },
    ],
  });
  assert.match(config, /allow-transfer \{ none; \};/);
  assert.match(config, /view "a\.test\." in \{\n {2}match-destinations \{ 192\.0\.2\.1; \};/);
  assert.match(config, /listen-on \{ 192\.0\.2\.1; \};/);
  assert.match(config, /listen-on port 5353 \{ 192\.0\.2\.2; \};/);
  assert.match(config, /listen-on-v6 port 5353 \{ 2001:db8::2; \};/);
  assert.match(config, /view "b\.test\." in \{[^}]*\};\n {2}recursion yes;[\s\S]*allow-transfer \{ any; \};[\s\S]*zone "\." \{ type hint;/);
  assert.match(config, /view "b\.test\. chaos" chaos/);
  // BIND's own CHAOS answers come last, from a view of ours without the built-in rate limit.
  assert.match(
    config,
    /view "lab chaos" chaos \{[^]*zone "version\.bind" chaos \{ type primary; database "_builtin version"; \};[^]*\};\n$/,
  );
  assert.ok(config.indexOf('view "lab chaos"') > config.indexOf('view "b.test. chaos"'), "after the servers' own CHAOS views");
  assert.doesNotMatch(config, /rate-limit/);
});

test('a variant copies its scenario under its own domain and addresses, served by the implementation it names', () => {
  const original = loadScenario('healthy-signed');
  const variant = loadScenario('knot-healthy-signed');
  const own = (s: typeof variant) => s.servers.filter((server) => server.name.includes('healthy'));
  assert.deepEqual(
    own(variant).map((s) => [s.name, s.implementation]),
    [
      ['ns1.healthy-knot.test.', 'knot'],
      ['ns2.healthy-knot.test.', 'knot'],
    ],
  );
  assert.deepEqual(
    own(original).map((s) => s.implementation),
    ['bind', 'bind'],
  );
  assert.ok(
    variant.servers.filter((s) => !s.name.includes('healthy')).every((s) => s.implementation === 'bind'),
    "the scenario's extends stay BIND's",
  );
  assert.deepEqual(own(variant)[0]?.addresses, ['192.0.2.117', '2001:db8:4100::1']);
  const zone = variant.zones.find((z) => z.origin === 'healthy-knot.test.');
  assert.deepEqual(zone?.servers, ['ns1.healthy-knot.test.', 'ns2.healthy-knot.test.']);
  assert.equal(zone?.dnssec?.denial, 'nsec3');
  assert.equal(zone?.keysFrom, 'healthy.test.', "signed with the original's stored keys");
  assert.deepEqual(
    loadScenario(['healthy-signed', 'knot-healthy-signed', 'nsd-healthy-signed']).domains,
    ['healthy.test.', 'healthy-knot.test.', 'healthy-nsd.test.'],
    'variants share a world with their scenario',
  );
});

test('a variant renames absolute names and addresses in zone text, and refuses a map that does not fit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-variant-'));
  try {
    writeFileSync(join(dir, 'base.yaml'), root);
    writeFileSync(
      join(dir, 'source.yaml'),
      `domain: src.test
extends: base.yaml
servers:
  - { name: ns1.src.test, addresses: [192.0.2.1], behaviour: { answerName: other.src.test } }
zones:
  - origin: src.test
    servers: [ns1.src.test]
    parent: { ns: [ns1.src.test, ns.elsewhere.test] }
    text: "@ SOA ns1.src.test. h.NS1.Src.Test. 1 2 3 4 5\\n@ NS ns1\\nmail A 192.0.2.1\\nx A 192.0.2.11\\ny CNAME notsrc.test."
`,
    );
    const variant = (body: string): string => {
      const path = join(dir, `v${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(path, `domain: copy.test\nvariantOf: source.yaml\n${body}`);
      return path;
    };
    const world = loadScenario(variant("implementation: { ns1.copy.test: nsd }\naddresses: { '192.0.2.1': '192.0.2.9' }\n"));
    const server = world.servers.find((s) => s.name === 'ns1.copy.test.');
    assert.deepEqual([server?.implementation, server?.addresses, server?.behaviour.answerName], ['nsd', ['192.0.2.9'], 'other.copy.test.']);
    const zone = world.zones.find((z) => z.origin === 'copy.test.');
    assert.equal(
      zone?.text,
      '@ SOA ns1.copy.test. h.NS1.copy.test. 1 2 3 4 5\n@ NS ns1\nmail A 192.0.2.9\nx A 192.0.2.11\ny CNAME notsrc.test.',
    );
    assert.deepEqual(zone?.parent.ns, ['ns1.copy.test.', 'ns.elsewhere.test.']);
    assert.equal(world.servers.find((s) => s.name === 'a.root.test.')?.implementation, 'bind');
    assert.throws(() => loadScenario(variant('addresses: {}\n')), /no new address for 192\.0\.2\.1/);
    assert.throws(
      () => loadScenario(variant("addresses: { '192.0.2.1': '192.0.2.9', '192.0.2.2': '192.0.2.8' }\n")),
      /maps 192\.0\.2\.2, which no server/,
    );
    assert.throws(
      () => loadScenario(variant("implementation: { ns9.copy.test: knot }\naddresses: { '192.0.2.1': '192.0.2.9' }\n")),
      /implementation names ns9\.copy\.test\./,
    );
    assert.throws(() => loadScenario(variant("implementation: unbound\naddresses: { '192.0.2.1': '192.0.2.9' }\n")), /implementation/);
    assert.throws(
      () => loadScenario(variant("addresses: { '192.0.2.1': '192.0.2.9' }\nservers: [{ name: ns2.copy.test, addresses: [192.0.2.7] }]\n")),
      /cannot add its own/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('open recursion is BIND only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-recursion-'));
  try {
    writeFileSync(
      join(dir, 'r.yaml'),
      root.replace('addresses:', 'implementation: knot\n    behaviour: { recursion: true }\n    addresses:'),
    );
    assert.throws(() => loadScenario(join(dir, 'r.yaml')), /open recursion is played by BIND only/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Knot, NSD and PowerDNS configurations: their addresses and port, the zone files, transfers and version only when asked', () => {
  const behaviour = parseScenarioText(root, 'x.yaml').servers[0].behaviour;
  const server = {
    name: 'a.test.',
    addresses: ['192.0.2.1', '2001:db8::1'],
    implementation: 'knot' as const,
    engine: 'bind' as const,
    behaviour,
    zones: [{ origin: 'a.test.', file: '/tmp/x/a.db' }],
  };
  const knot = knotConfig(server, '/tmp/x/k', 5353);
  assert.match(knot, /listen: \[ "192\.0\.2\.1@5353", "2001:db8::1@5353" \]/);
  assert.match(knot, /- domain: "a\.test\."\n {4}file: "\/tmp\/x\/a\.db"\n/);
  assert.match(knot, /version: ""/);
  assert.doesNotMatch(knot, /acl: transfer/);
  assert.match(
    knotConfig({ ...server, behaviour: { ...behaviour, axfr: true, version: 'v9' } }, '/tmp/x/k', 53),
    /version: "v9"[\s\S]*acl: transfer/,
  );
  const nsd = nsdConfig(server, '/tmp/x/n', 53);
  assert.match(nsd, /ip-address: 192\.0\.2\.1@53\n {4}ip-address: 2001:db8::1@53/);
  assert.match(nsd, /hide-version: yes/);
  assert.doesNotMatch(nsd, /provide-xfr/);
  assert.match(nsdConfig({ ...server, behaviour: { ...behaviour, axfr: true } }, '/tmp/x/n', 53), /provide-xfr: 0\.0\.0\.0\/0 NOKEY/);
});

test('PowerDNS serves signed zones as pre-signed, with their NSEC3 parameters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-powerdns-'));
  try {
    const behaviour = parseScenarioText(root, 'x.yaml').servers[0].behaviour;
    const zones = [
      { origin: 'a.test.', file: '/tmp/a.db', signed: { nsec3: { iterations: 5, salt: 'ab', optOut: true } } },
      { origin: 'b.test.', file: '/tmp/b.db', signed: {} },
      { origin: 'c.test.', file: '/tmp/c.db' },
    ];
    const args = powerdnsSetup(
      { name: 'p.test.', addresses: ['192.0.2.1', '2001:db8::1'], implementation: 'powerdns', engine: 'responder', behaviour, zones },
      dir,
      5353,
    );
    assert.ok(
      args.includes('--local-address=192.0.2.1,2001:db8::1') && args.includes('--local-port=5353') && args.includes('--disable-axfr=yes'),
    );
    assert.ok(args.includes(`--bind-dnssec-db=${dir}/dnssec.db`));
    const db = new DatabaseSync(`${dir}/dnssec.db`);
    assert.deepEqual(
      db
        .prepare('select domain, kind, content from domainmetadata order by id')
        .all()
        .map((r) => Object.values(r).join(' ')),
      ['a.test PRESIGNED 1', 'a.test NSEC3PARAM 1 1 5 ab', 'b.test PRESIGNED 1'],
    );
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
