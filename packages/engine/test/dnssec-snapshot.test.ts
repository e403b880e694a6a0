// The DNSSEC snapshot a watch keeps per run, read from a run saved in the lab (fixtures/wrongds-run.json):
// keys, DS and the first signature to expire, server by server, with nothing asked again.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyseChain } from '../src/chain/analyse-chain.ts';
import { dnssecSnapshot } from '../src/index.ts';
import type { Exchange } from '../src/net/network.ts';

const saved = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/wrongds-run.json'), 'utf8')) as {
  domain: string;
  savedAt: string;
  exchanges: Exchange[];
};

test('each server of the zone: its DNSKEY set with the keys that sign it, and the signature that expires first', () => {
  const snapshot = dnssecSnapshot(saved.domain, saved.exchanges);
  assert.equal(snapshot.zone, 'wrongds.test.');
  assert.deepEqual(
    snapshot.servers.map((s) => s.server),
    ['ns1.wrongds.test/192.0.2.70', 'ns1.wrongds.test/2001:db8:70::1', 'ns2.wrongds.test/2001:db8:70::2', 'ns2.wrongds.test/203.0.113.70'],
  );
  for (const server of snapshot.servers) {
    assert.deepEqual(server.keys?.map((k) => [k.id, k.flags, k.signsKeys]).sort(), [
      ['13/37737', 257, true],
      ['13/53902', 256, true],
    ]);
    // The ZSK signs the other RRsets; the KSK only the DNSKEY set, which a cache checks against itself.
    assert.deepEqual(server.signingKeys, [{ tag: 53902, ttl: 3600 }]);
  }
  // The same instant the chain analysis gives as the zone's earliest signature expiry.
  const zone = analyseChain({ domain: saved.domain, exchanges: saved.exchanges, at: new Date(saved.savedAt) }).zones[2];
  const earliest = Math.min(...zone.queries.flatMap((q) => q.rrsets.flatMap((r) => r.rrsigs.map((s) => s.expiration))));
  assert.ok(snapshot.servers.every((s) => s.earliestExpiry?.expiration === earliest));
});

test('the DS set each parent server gave, named as the chain names DS records', () => {
  const snapshot = dnssecSnapshot(saved.domain, saved.exchanges);
  assert.deepEqual(
    snapshot.parents.map((p) => [p.server, p.ds.map((d) => `${d.id} ttl ${d.ttl}`)]),
    [
      ['ns1.nic.test/198.51.100.11', ['13/37737/2 ttl 3600']],
      ['ns1.nic.test/2001:db8:100::11', ['13/37737/2 ttl 3600']],
      ['ns2.nic.test/198.51.100.12', ['13/37737/2 ttl 3600']],
      ['ns2.nic.test/2001:db8:100::12', ['13/37737/2 ttl 3600']],
    ],
  );
});

test('a log without the zone gives no server, and an undecodable reply is skipped', () => {
  const broken: Exchange = { ...saved.exchanges[0], reply: Buffer.from('not dns').toString('base64') };
  assert.deepEqual(dnssecSnapshot('other.test', [broken, ...saved.exchanges]), { zone: 'other.test.', servers: [], parents: [] });
});

// Recorded by `bench/rollover/run.ts stopped --record FILE` in the lab: a run of roll. (signatures never
// renewed) and what check_zone_rrsig_expiration (monitoring-plugins-contrib) said of the same zone two
// minutes before expiry, bisected to the second with its clock frozen.
test('the first expiry is the one check_zone_rrsig_expiration reports, to the second', () => {
  const recorded = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/rrsig-expiration-plugin.json'), 'utf8')) as {
    domain: string;
    plugin: { expiration: number; frozenAt: number };
    exchanges: Exchange[];
  };
  const snapshot = dnssecSnapshot(recorded.domain, recorded.exchanges);
  assert.equal(snapshot.servers.length, 2);
  for (const server of snapshot.servers) assert.equal(server.earliestExpiry?.expiration, recorded.plugin.expiration, server.server);
  assert.ok(recorded.plugin.expiration - recorded.plugin.frozenAt < 300, 'recorded while the signatures were about to expire');
});
