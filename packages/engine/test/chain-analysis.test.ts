// The chain analysis on a run saved in the lab (fixtures/wrongds-run.json: wrongds.test, whose DS
// digest matches no key), without a network: what DNSViz says of that zone, and what it cannot say.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyseChain } from '../src/chain/analyse-chain.ts';
import { toDnsvizJson } from '../src/chain/dnsviz-json.ts';
import { main } from '../src/cli/main.ts';
import type { Exchange } from '../src/net/network.ts';

const fixture = join(import.meta.dirname, 'fixtures/wrongds-run.json');
const saved = JSON.parse(readFileSync(fixture, 'utf8')) as { domain: string; savedAt: string; exchanges: Exchange[] };
const at = new Date(saved.savedAt);

test('root to zone: the zones, the DS with INVALID_DIGEST, a BOGUS delegation with no secure entry point', () => {
  const chain = analyseChain({ domain: saved.domain, exchanges: saved.exchanges, at });
  assert.deepEqual(
    chain.zones.map((z) => [z.name, z.parent, z.delegation?.status]),
    [
      ['.', undefined, undefined],
      ['test.', '.', 'INSECURE'],
      ['wrongds.test.', 'test.', 'BOGUS'],
    ],
  );
  const zone = chain.zones[2];
  assert.deepEqual(
    zone.delegation?.ds.map((d) => [d.id, d.status, d.key, d.errors.map((e) => e.code)]),
    [['13/37737/2', 'INVALID_DIGEST', '13/37737', ['DIGEST_INVALID']]],
  );
  assert.deepEqual(
    zone.delegation?.errors.map((e) => e.code),
    ['NO_SEP'],
  );
  assert.deepEqual(
    zone.dnskeys.map((k) => [k.id, k.flags, k.keyLength, k.signs]),
    [
      ['13/37737', 257, 512, ['wrongds.test./DNSKEY']],
      [
        '13/53902',
        256,
        512,
        ['wrongds.test./DNSKEY', 'wrongds.test./NS', 'wrongds.test./NSEC', 'wrongds.test./SOA', 'www.wrongds.test./NSEC'],
      ],
    ],
  );
  assert.deepEqual(
    zone.servers.map((s) => [s.name, s.glue]),
    [
      ['ns1.wrongds.test.', ['192.0.2.70', '2001:db8:70::1']],
      ['ns2.wrongds.test.', ['2001:db8:70::2', '203.0.113.70']],
    ],
  );
  assert.ok(zone.queries.every((q) => q.rrsets.every((r) => r.rrsigs.every((s) => s.status === 'VALID'))));
  // The negative answers the run met, each with its NSEC proof: the apex's missing types, and the
  // DNSSEC10 probe name that does not exist.
  assert.deepEqual(
    zone.queries.filter((q) => q.kind !== 'answer').map((q) => [q.name, q.type, q.kind, q.proof?.type, q.proof?.status]),
    [
      ['wrongds.test.', 51, 'nodata', 'NSEC', 'VALID'],
      ['wrongds.test.', 59, 'nodata', 'NSEC', 'VALID'],
      ['wrongds.test.', 60, 'nodata', 'NSEC', 'VALID'],
      ['xx--oplk4f3fgh9lksdfhu7h--xx.wrongds.test.', 1, 'nxdomain', 'NSEC', 'VALID'],
    ],
  );
  // The run asked nothing of the root's or test.'s keys: said, not guessed.
  assert.ok(chain.zones[0].notes.some((n) => /did not ask \.'s servers for its DNSKEY/.test(n)));
  assert.ok(chain.zones[1].notes.some((n) => /did not ask \.'s servers for the DS of test\./.test(n)));
});

test('signatures are judged at the given time: a year on they are EXPIRED; before their inception PREMATURE', () => {
  const statuses = (when: Date) => {
    const zone = analyseChain({ domain: saved.domain, exchanges: saved.exchanges, at: when }).zones[2];
    return [...new Set(zone.queries.flatMap((q) => q.rrsets.flatMap((r) => r.rrsigs.map((s) => s.status))))];
  };
  assert.deepEqual(statuses(new Date(at.getTime() + 365 * 86_400_000)), ['EXPIRED']);
  assert.deepEqual(statuses(new Date(at.getTime() - 2 * 86_400_000)), ['PREMATURE']);
});

test("grok's shape: zone keys with the final dot, delegation.ds[] ids and statuses, dnskey[] ids, queries by name/IN/TYPE", () => {
  const grok = toDnsvizJson(analyseChain({ domain: saved.domain, exchanges: saved.exchanges, at })) as Record<
    string,
    Record<string, unknown>
  >;
  assert.deepEqual(Object.keys(grok), ['.', 'test.', 'wrongds.test.']);
  const zone = grok['wrongds.test.'] as {
    delegation: { status: string; ds: { id: string; status: string; digest_type: number }[] };
    dnskey: { id: string; key_length: number }[];
    queries: Record<string, { answer?: { rrsig: { id: string; status: string; expiration: string }[] }[] }>;
  };
  assert.equal(zone.delegation.status, 'BOGUS');
  assert.deepEqual(
    zone.delegation.ds.map((d) => [d.id, d.status, d.digest_type]),
    [['13/37737/2', 'INVALID_DIGEST', 2]],
  );
  assert.deepEqual(
    zone.dnskey.map((k) => [k.id, k.key_length]),
    [
      ['13/37737', 512],
      ['13/53902', 512],
    ],
  );
  assert.deepEqual(Object.keys(zone.queries).sort(), [
    'wrongds.test./IN/CDNSKEY',
    'wrongds.test./IN/CDS',
    'wrongds.test./IN/DNSKEY',
    'wrongds.test./IN/DS',
    'wrongds.test./IN/NS',
    'wrongds.test./IN/NSEC3PARAM',
    'wrongds.test./IN/SOA',
    'xx--oplk4f3fgh9lksdfhu7h--xx.wrongds.test./IN/A',
  ]);
  const probe = zone.queries['xx--oplk4f3fgh9lksdfhu7h--xx.wrongds.test./IN/A'] as unknown as {
    nxdomain: { proof: { id: string; status: string; nsec: unknown[] }[] }[];
  };
  assert.deepEqual(
    probe.nxdomain[0].proof.map((p) => [p.id, p.status, p.nsec.length]),
    [['NSEC', 'VALID', 2]],
  );
  const dnskeySigs = zone.queries['wrongds.test./IN/DNSKEY'].answer![0].rrsig;
  assert.deepEqual(dnskeySigs.map((s) => [s.id, s.status]).sort(), [
    ['wrongds.test./13/37737', 'VALID'],
    ['wrongds.test./13/53902', 'VALID'],
  ]);
  assert.match(dnskeySigs[0].expiration, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
});

test("dnscheck --restore FILE --chain-json OUT --chain-svg OUT2 writes both, offline, with the run's exit code", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-cli-'));
  try {
    const out: string[] = [];
    const code = await main(['--restore', fixture, '--chain-json', join(dir, 'chain.json'), '--chain-svg', join(dir, 'chain.svg')], {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      interactive: false,
    });
    assert.equal(code, 4);
    const written = JSON.parse(readFileSync(join(dir, 'chain.json'), 'utf8')) as Record<string, { delegation?: { status: string } }>;
    assert.equal(written['wrongds.test.']?.delegation?.status, 'BOGUS');
    const svg = readFileSync(join(dir, 'chain.svg'), 'utf8');
    assert.match(svg, /^<svg [^>]*role="img"/);
    assert.match(svg, /wrongds\.test — BOGUS/);
    const bad = await main(['--restore', fixture, '--chain-json', join(dir, 'missing', 'x.json')], {
      stdout: () => undefined,
      stderr: () => undefined,
      interactive: false,
    }).catch((error: unknown) => error);
    assert.ok(bad instanceof Error || bad === 1, 'an unwritable file is an error, not a silent success');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
