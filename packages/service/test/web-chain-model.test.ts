// The Chain view's logic that needs no browser: what get_test_chain's grok JSON becomes as nodes and
// edges, which findings concern which node, and where the layout puts things at a phone's and a desktop's width.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainJson, TestEvidence, TestResult } from '../src/web/client/api.ts';
import { findingsByNode } from '../src/web/client/chain-findings.ts';
import { layoutChain } from '../src/web/client/chain-layout.ts';
import { chainModel, keyNodeId } from '../src/web/client/chain-model.ts';
import { digestHex, keySizeText, roleText } from '../src/web/client/chain-texts.ts';

const rrsig = (signer: string, tag: number, status: string) => ({
  id: `${signer}/13/${tag}`,
  signer,
  algorithm: 13,
  key_tag: tag,
  inception: '2026-11-01 00:00:00 UTC',
  expiration: '2026-12-01 00:00:00 UTC',
  status,
  servers: ['192.0.2.70'],
});
const rrset = (name: string, type: string, sigs: ReturnType<typeof rrsig>[]) => ({
  id: `${name}/IN/${type}`,
  name,
  type,
  ttl: 3600,
  rdata: ['x'],
  servers: ['192.0.2.70'],
  rrsig: sigs,
});

/** wrongds.test's chain as the service gives it: the parent's DS names the KSK but its digest is wrong. */
const broken: ChainJson = {
  '.': { status: 'NOERROR', queries: {}, zone: { servers: { 'a.root-servers.test.': {} } }, dnscheck_notes: ['The run did not ask .'] },
  'test.': {
    status: 'NOERROR',
    queries: {},
    zone: { servers: { 'ns1.nic.test.': { glue: ['198.51.100.11'], auth: ['198.51.100.11'] } } },
    delegation: { status: 'INSECURE' },
  },
  'wrongds.test.': {
    status: 'NOERROR',
    queries: {
      'wrongds.test./IN/DNSKEY': {
        answer: [rrset('wrongds.test.', 'DNSKEY', [rrsig('wrongds.test.', 37737, 'VALID'), rrsig('wrongds.test.', 53902, 'VALID')])],
      },
      'wrongds.test./IN/SOA': { answer: [rrset('wrongds.test.', 'SOA', [rrsig('wrongds.test.', 53902, 'EXPIRED')])] },
      'wrongds.test./IN/NS': { answer: [rrset('wrongds.test.', 'NS', [rrsig('wrongds.test.', 53902, 'VALID')])] },
      'wrongds.test./IN/DS': { answer: [rrset('wrongds.test.', 'DS', [])] },
    },
    dnskey: [
      {
        id: '13/37737',
        flags: 257,
        algorithm: 13,
        key_length: 512,
        key_tag: 37737,
        ttl: 3600,
        servers: ['192.0.2.70'],
        signs: ['wrongds.test./DNSKEY'],
      },
      {
        id: '13/53902',
        flags: 256,
        algorithm: 13,
        key_length: 512,
        key_tag: 53902,
        ttl: 3600,
        servers: ['192.0.2.70'],
        signs: ['wrongds.test./DNSKEY', 'wrongds.test./NS'],
      },
    ],
    zone: { servers: { 'ns1.wrongds.test.': { glue: ['192.0.2.70'], auth: ['192.0.2.70'] } } },
    delegation: {
      status: 'BOGUS',
      ds: [
        {
          id: '13/37737/2',
          algorithm: 13,
          key_tag: 37737,
          digest_type: 2,
          digest: 'AA==',
          ttl: 3600,
          status: 'INVALID_DIGEST',
          servers: ['198.51.100.11'],
          errors: [{ code: 'DIGEST_INVALID', description: 'no match' }],
        },
      ],
    },
  },
};

test("zones root first, each with its keys and apex RRsets; the child's DS in the parent's box, its digest edge to the key it names", () => {
  const model = chainModel(broken);
  assert.deepEqual(
    model.zones.map((z) => [z.name, z.parent, z.node.status]),
    [
      ['.', undefined, 'root'],
      ['test.', '.', 'INSECURE'],
      ['wrongds.test.', 'test.', 'BOGUS'],
    ],
  );
  assert.deepEqual(
    model.zones.map((z) => z.nodes.map((n) => `${n.kind} ${n.status}`)),
    [[], ['ds INVALID_DIGEST'], ['dnskey KSK', 'dnskey ZSK', 'rrset RRSIG EXPIRED', 'rrset signed']],
  );
  const ds = model.zones[1].nodes[0];
  const ksk = keyNodeId('wrongds.test.', '13/37737');
  const zsk = keyNodeId('wrongds.test.', '13/53902');
  assert.deepEqual(
    model.edges.filter((e) => e.kind === 'digest'),
    [{ from: ds.id, to: ksk, kind: 'digest', tone: 'bogus' }],
  );
  const signs = model.edges
    .filter((e) => e.kind === 'signs')
    .map((e) => [
      model.nodes.get(e.from)?.kind,
      model.nodes.get(e.to)?.kind === 'rrset' ? (model.nodes.get(e.to) as { type: string }).type : e.to === ksk ? 'KSK' : 'ZSK',
      e.tone,
    ]);
  assert.deepEqual(signs, [
    ['dnskey', 'KSK', 'secure'],
    ['dnskey', 'ZSK', 'secure'],
    ['dnskey', 'KSK', 'secure'],
    ['dnskey', 'ZSK', 'secure'],
    ['dnskey', 'SOA', 'bogus'],
    ['dnskey', 'NS', 'secure'],
  ]);
  assert.ok(model.edges.every((e) => e.kind === 'digest' || e.from === ksk || e.from === zsk));
});

test("a DS digest shows in hex as the rest of the report writes it, and a key's size as its algorithm names it", () => {
  // DNSViz's JSON keeps the digest in base64: this is SHA-256 of nothing.
  assert.equal(
    digestHex('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='),
    'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
  );
  assert.equal(digestHex(''), '');
  assert.equal(digestHex('not base64!'), 'not base64!', 'what is not base64 shows as it came');
  const bits = (key: string, args?: Record<string, string | number>) => `${key} ${String(args?.bits)}`;
  assert.deepEqual(
    [
      [13, 512],
      [14, 768],
      [15, 256],
      [16, 456],
      [8, 2048],
      [12, 512],
    ].map(([algorithm, length]) => keySizeText(algorithm, length, bits)),
    ['chain_bits 256', 'chain_bits 384', 'chain_bits 256', 'chain_bits 448', 'chain_bits 2048', 'chain_bits 256'],
  );
  const words = (key: string) => `<${key}>`;
  assert.deepEqual(
    [257, 256, 385, 0].map((flags) => roleText(flags, words)),
    ['KSK', 'ZSK', 'KSK, <chain_revoked>', '<chain_not_zone_key>'],
  );
});

test("a parent's proof that there is no DS is a node of its own, insecure when valid, bogus when not", () => {
  const proof = (status: string): ChainJson => ({
    '.': { status: 'NOERROR' },
    'example.': {
      status: 'NOERROR',
      delegation: { status: 'INSECURE' },
      queries: {
        'example./IN/DS': {
          nodata: [
            {
              id: 'example./IN/DS',
              servers: ['192.0.2.1'],
              proof: [{ id: 'NSEC', status, nsec: [rrset('example.', 'NSEC', [rrsig('.', 1, status)])] }],
            },
          ],
        },
      },
    },
  });
  for (const [status, tone] of [
    ['VALID', 'insecure'],
    ['INVALID', 'bogus'],
  ] as const) {
    const model = chainModel(proof(status));
    const node = model.zones[0].nodes[0];
    assert.deepEqual([node.kind, node.status, node.tone], ['no-ds', status, tone]);
    // Signed by a root key the run never asked for: the edge has nothing to start from and is left out.
    assert.deepEqual(model.edges, []);
  }
});

test('findings go to the nodes their tags and arguments name; the tested zone keeps the other DNSSEC ones above INFO', () => {
  const model = chainModel(broken);
  const result = (testcase: string, level: TestResult['level'], message: string): TestResult => ({
    module: testcase.startsWith('DNSSEC') ? 'DNSSEC' : 'BASIC',
    testcase,
    level,
    message,
  });
  const results = [
    result('DNSSEC02', 'ERROR', 'DS does not match'),
    result('DNSSEC04', 'ERROR', 'SOA signature expired'),
    result('DNSSEC03', 'WARNING', 'something about the zone'),
    result('DNSSEC01', 'INFO', 'nothing in particular'),
    result('BASIC01', 'INFO', 'delegated'),
  ];
  const evidence: TestEvidence = {
    results: [
      { tag: 'DS02_NO_MATCH_DS_DNSKEY', args: { keytag: 37737, ns_ip_list: '192.0.2.70' } },
      { tag: 'DS09_SOA_RRSIG_EXPIRED', args: { keytag: '53902' } },
      { tag: 'NO_NSEC3PARAM', args: { domain: 'wrongds.test' } },
      { tag: 'DS01_OK', args: {} },
      { tag: 'B01_PARENT_FOUND', args: { domain: 'test' } },
    ],
    query_log: { queries: 0, servers: 0, unanswered: 0 },
    query_counts: {},
    ds_suggestion: [],
    reused_until: '',
  };
  const found = findingsByNode(model, results, evidence, 'wrongds.test');
  const by = (id: string) => (found.get(id) ?? []).map((r) => r.testcase);
  const [ds] = model.zones[1].nodes;
  const [, , soa, ns] = model.zones[2].nodes;
  assert.deepEqual(by(ds.id), ['DNSSEC02']);
  assert.deepEqual(by(keyNodeId('wrongds.test.', '13/37737')), ['DNSSEC02']);
  assert.deepEqual(by(keyNodeId('wrongds.test.', '13/53902')), ['DNSSEC04']);
  assert.deepEqual(by(soa.id), ['DNSSEC04']);
  assert.deepEqual(by(ns.id), []);
  assert.deepEqual(by(model.zones[2].node.id), ['DNSSEC03'], 'the zone: its domain argument; not the INFO, not another module');
  assert.deepEqual(by(model.zones[1].node.id), []);
  // Without the evidence (an older service) nothing can be matched.
  assert.ok([...findingsByNode(model, results, undefined, 'wrongds.test').values()].every((list) => list.length === 0));
});

test("the layout: nested boxes, every node inside its zone's box, one column at 330 px and several at 900, the same every time", () => {
  const model = chainModel(broken);
  for (const width of [330, 900]) {
    const layout = layoutChain(model, width, 100, 30);
    assert.deepEqual(layoutChain(model, width, 100, 30), layout, 'deterministic');
    assert.equal(layout.width, width);
    layout.boxes.forEach((box, i) => {
      const outer = layout.boxes[i - 1];
      if (outer)
        assert.ok(
          box.x > outer.x && box.y > outer.y && box.x + box.width < outer.x + outer.width && box.y + box.height < outer.y + outer.height,
          `box ${box.zone} inside ${outer.zone}`,
        );
      for (const node of model.zones[i].nodes) {
        const r = layout.places.get(node.id)!;
        assert.ok(r.x >= box.x && r.x + r.width <= box.x + box.width && r.y > box.y, `${node.id} in ${box.zone} at ${width}`);
      }
    });
    const keys = model.zones[2].nodes.filter((n) => n.kind === 'dnskey').map((n) => layout.places.get(n.id)!);
    assert.equal(keys[0].y === keys[1].y, width === 900, `keys side by side only when there is room (${width} px)`);
    assert.ok(layout.legendY > Math.max(...layout.boxes.map((b) => b.y + b.height)) && layout.height === layout.legendY + 100);
  }
  assert.equal(layoutChain(model, 100, 0, 0).width, 300, 'never narrower than 300');
});
