// ZONEMD digests (RFC 8976). The expected digests were checked with ldns-verify-zone -Z (ldnsutils 1.8.3),
// which reported "Zone is verified and complete" for this zone with each of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Name, parseZoneFile, verifyZonemd, zoneDigest } from '../src/index.ts';

const zoneText = `$ORIGIN example.
$TTL 3600
@ 86400 IN SOA ns1 admin 2018031900 1800 900 604800 86400
@ IN NS ns1
@ IN NS NS2
ns1 IN A 203.0.113.63
NS2 IN AAAA 2001:db8::63
b.Example. IN TXT "x"
a IN MX 10 Mail.Example.
a IN A 192.0.2.1
sub IN NS ns.sub
ns.sub IN A 192.0.2.9
`;
const sha384 = 'fba26cf62dc3e4b321a2235c57602fffe0563f48123d7892822167eb51741a65e259d94a360ae792dacf5b527626c4ca';
const sha512 =
  '234c989053427f66dd522a365a18ad569fec0acd0e1c44212f37443130d3f136a3c8aef30af95a492395bf485202c612a45c5b991a4e3b4cde07190930565be0';
const apex = Name.fromString('example.');
const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('hex');
const zone = (extra = '') => parseZoneFile(zoneText + extra, { origin: apex });

test('the SIMPLE digest with SHA384 and SHA512 equals the one ldns-verify-zone accepts', () => {
  assert.equal(hex(zoneDigest(zone(), apex, 1)), sha384);
  assert.equal(hex(zoneDigest(zone(), apex, 2)), sha512);
  assert.equal(zoneDigest(zone(), apex, 3), undefined);
});

test('record order, duplicates, name case and out-of-zone records do not change the digest', () => {
  const shuffled = [...zone('a IN A 192.0.2.1\nA.EXAMPLE. IN A 192.0.2.1\nns.other. IN A 192.0.2.7\n')].reverse();
  assert.equal(hex(zoneDigest(shuffled, apex, 1)), sha384);
});

test('the apex ZONEMD and its RRSIGs are left out, a ZONEMD below the apex is not', () => {
  const rrsig = '@ IN RRSIG ZONEMD 13 1 3600 20300101000000 20200101000000 1 example. AAAA\n';
  assert.equal(hex(zoneDigest(zone(`@ IN ZONEMD 2018031900 1 1 ${'00'.repeat(48)}\n${rrsig}`), apex, 1)), sha384);
  assert.notEqual(hex(zoneDigest(zone(`b IN ZONEMD 1 1 1 ${'00'.repeat(48)}\n`), apex, 1)), sha384);
  assert.notEqual(hex(zoneDigest(zone(rrsig.replace('ZONEMD', 'TXT')), apex, 1)), sha384);
});

test('verification: a matching record verifies, a wrong digest or serial fails, an unknown algorithm is only unsupported', () => {
  const withZonemd = (rdata: string) => verifyZonemd(zone(`@ IN TYPE63 \\# ${rdata.length / 2} ${rdata}\n`), apex);
  const rdata = (serial: number, scheme: number, algorithm: number, digest: string) =>
    `${serial.toString(16).padStart(8, '0')}${scheme.toString(16).padStart(2, '0')}${algorithm.toString(16).padStart(2, '0')}${digest}`;
  assert.equal(withZonemd(rdata(2018031900, 1, 1, sha384)).status, 'verified');
  assert.equal(withZonemd(rdata(2018031900, 1, 2, sha512)).status, 'verified');
  const wrong = withZonemd(rdata(2018031900, 1, 1, `ff${sha384.slice(2)}`));
  assert.equal(wrong.status, 'failed');
  assert.equal(wrong.records[0].verdict, 'mismatch');
  assert.equal(hex(wrong.records[0].computed), sha384);
  assert.equal(withZonemd(rdata(2018031901, 1, 1, sha384)).records[0].verdict, 'serial-mismatch');
  assert.equal(withZonemd(rdata(2018031900, 1, 9, sha384)).status, 'unsupported');
  assert.equal(withZonemd(rdata(2018031900, 240, 1, sha384)).status, 'unsupported');
  assert.equal(verifyZonemd(zone(), apex).status, 'absent');
});

test('two records of one scheme and algorithm fail, whatever their digests', () => {
  const one = `@ IN TYPE63 \\# 54 ${(2018031900).toString(16)}0101${sha384}\n`;
  const other = `@ IN TYPE63 \\# 54 ${(2018031900).toString(16)}0101${'00'.repeat(48)}\n`;
  const result = verifyZonemd(zone(one + other), apex);
  assert.equal(result.status, 'failed');
  assert.deepEqual(
    result.records.map((r) => r.verdict),
    ['duplicate', 'duplicate'],
  );
});
