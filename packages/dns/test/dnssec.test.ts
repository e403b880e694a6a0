import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  base32hexEncode,
  type DnskeyData,
  dsDigest,
  keyTag,
  Name,
  nsec3Hash,
  parseZoneFile,
  query,
  recordIs,
  type ResourceRecord,
  type RrsigData,
  rrsigsCovering,
  RRType,
  verifyRrsig,
} from '@app/dns';
import { namedMissing, startNamed, type RunningNamed } from './helpers/named.ts';

const algorithms = [
  { number: 5, name: 'RSASHA1' },
  { number: 7, name: 'NSEC3RSASHA1' },
  { number: 8, name: 'RSASHA256' },
  { number: 10, name: 'RSASHA512' },
  { number: 13, name: 'ECDSAP256SHA256' },
  { number: 14, name: 'ECDSAP384SHA384' },
  { number: 15, name: 'ED25519' },
  { number: 16, name: 'ED448' },
];

const zoneText = (origin: string) => `$ORIGIN ${origin}
$TTL 300
@ IN SOA ns1 hostmaster 1 7200 3600 1209600 300
@ IN NS ns1
ns1 IN A 192.0.2.53
www IN A 192.0.2.80
www IN A 192.0.2.81
www IN AAAA 2001:db8::80
MiXeD IN MX 10 Mail.Example.NET.
txt IN TXT "hello" "world"
*.wild IN A 192.0.2.99
`;

const missing =
  namedMissing() ?? (spawnSync('dnssec-keygen', ['-h']).error ? 'dnssec-keygen (Debian bind9-utils) is not installed' : undefined);
if (missing) console.log(`# skipping the DNSSEC signature tests: ${missing}`);

describe('RRSIGs made by dnssec-signzone verify for every supported algorithm', { skip: missing }, () => {
  let dir: string;
  let named: RunningNamed;
  const keyFiles = new Map<number, string>();
  const signedZones = new Map<string, string>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dns-dnssec-'));
    const zones = algorithms.map(({ number, name }) => {
      const origin = `alg${number}.test.`;
      const rsa = name.includes('RSA') ? ['-b', '1024'] : [];
      const base = execFileSync('dnssec-keygen', ['-q', '-K', dir, '-f', 'KSK', '-a', name, ...rsa, '-n', 'ZONE', origin], {
        encoding: 'utf8',
      }).trim();
      keyFiles.set(number, join(dir, `${base}.key`));
      const file = join(dir, `${origin}db`);
      writeFileSync(file, zoneText(origin));
      const nsec3 = number === 7 ? ['-3', 'aabbccdd', '-H', '2'] : [];
      execFileSync('dnssec-signzone', ['-q', '-z', '-S', '-K', dir, ...nsec3, '-o', origin, '-f', `${file}.signed`, file], {
        cwd: dir,
        stdio: 'pipe',
      });
      signedZones.set(origin, readFileSync(`${file}.signed`, 'utf8'));
      return { origin, text: signedZones.get(origin)! };
    });
    named = await startNamed(zones);
  });
  after(async () => {
    await named?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function fetch(name: string, type: number) {
    const r = await query(
      { address: '127.0.0.1', port: named.port },
      { name, type },
      { transport: 'tcp', timeoutMs: 3000, edns: { udpSize: 1232, do: true } },
    );
    assert.equal(r.outcome, 'response', `${name} ${type}`);
    return r.message;
  }

  async function zoneKey(origin: string): Promise<ResourceRecord<DnskeyData>> {
    const keys = (await fetch(origin, RRType.DNSKEY)).answer.filter((rr): rr is ResourceRecord<DnskeyData> => recordIs(rr, RRType.DNSKEY));
    assert.equal(keys.length, 1);
    return keys[0];
  }

  for (const { number, name } of algorithms) {
    test(`algorithm ${number} (${name})`, async () => {
      const origin = `alg${number}.test.`;
      const key = await zoneKey(origin);
      assert.equal(key.rdata.algorithm, number);
      // Our key tag agrees with the one BIND put in the key file name.
      assert.equal(keyTag(key.rdata), Number(/\+(\d+)\.key$/.exec(keyFiles.get(number)!)![1]));
      const checks: [string, number][] = [
        [origin, RRType.SOA],
        [origin, RRType.NS],
        [origin, RRType.DNSKEY],
        [`www.${origin}`, RRType.A],
        [`www.${origin}`, RRType.AAAA],
        [`mixed.${origin}`, RRType.MX],
        [`txt.${origin}`, RRType.TXT],
        [`anything.wild.${origin}`, RRType.A],
      ];
      for (const [owner, type] of checks) {
        const msg = await fetch(owner, type);
        const rrset = msg.answer.filter((rr) => rr.type === type);
        const [sig] = rrsigsCovering(msg.answer, type);
        assert.ok(rrset.length > 0 && sig, `${owner} ${type} is signed`);
        assert.deepEqual(verifyRrsig(rrset, sig, key), { ok: true }, `${owner} ${type}`);
      }
    });
  }

  test('every RRset of the signed zone files, read by our parser, verifies', () => {
    for (const [origin, text] of signedZones) {
      const records = parseZoneFile(text, { origin });
      const keys = records.filter((rr): rr is ResourceRecord<DnskeyData> => recordIs(rr, RRType.DNSKEY));
      const sigs = records.filter((rr): rr is ResourceRecord<RrsigData> => recordIs(rr, RRType.RRSIG));
      let verified = 0;
      for (const sig of sigs) {
        const rrset = records.filter((rr) => rr.type === sig.rdata.typeCovered && rr.name.equals(sig.name));
        const key = keys.find((k) => keyTag(k.rdata) === sig.rdata.keyTag)!;
        assert.deepEqual(verifyRrsig(rrset, sig, key), { ok: true }, `${sig.name.toString()} ${sig.rdata.typeCovered}`);
        verified++;
      }
      assert.ok(verified >= 10, `${origin}: ${verified} signatures`);
    }
  });

  test('denial records verify, and NSEC3 owner hashes match ours', async () => {
    const origin = 'alg7.test.';
    const key = await zoneKey(origin);
    const msg = await fetch(`nope.${origin}`, RRType.A);
    assert.equal(msg.rcode, 3);
    const nsec3 = msg.authority.filter((rr) => recordIs(rr, RRType.NSEC3));
    assert.ok(nsec3.length >= 2);
    for (const rr of nsec3) {
      const owned = msg.authority.filter((r) => r.type === RRType.NSEC3 && r.name.equals(rr.name));
      const sig = rrsigsCovering(msg.authority, RRType.NSEC3).find((s) => s.name.equals(rr.name))!;
      assert.deepEqual(verifyRrsig(owned, sig, key), { ok: true });
    }
    const apexHash = base32hexEncode(nsec3Hash(Name.fromString(origin), Uint8Array.of(0xaa, 0xbb, 0xcc, 0xdd), 2));
    assert.ok(
      nsec3.some((rr) => rr.name.equals(Name.fromString(`${apexHash}.${origin}`))),
      `an NSEC3 owned by ${apexHash}`,
    );
    const nsecMsg = await fetch('nope.alg13.test.', RRType.A);
    const nsec = nsecMsg.authority.filter((rr) => rr.type === RRType.NSEC);
    const nsecKey = await zoneKey('alg13.test.');
    for (const rr of nsec) {
      const sig = rrsigsCovering(nsecMsg.authority, RRType.NSEC).find((s) => s.name.equals(rr.name))!;
      assert.deepEqual(verifyRrsig([rr], sig, nsecKey), { ok: true });
    }
  });

  test('DS digests of types 1, 2 and 4 match dnssec-dsfromkey', async () => {
    for (const number of [8, 13, 15]) {
      const key = await zoneKey(`alg${number}.test.`);
      for (const [digestType, flag] of [
        [1, 'SHA-1'],
        [2, 'SHA-256'],
        [4, 'SHA-384'],
      ] as const) {
        const text = execFileSync('dnssec-dsfromkey', ['-a', flag, keyFiles.get(number)!], { encoding: 'utf8' });
        const [, tag, alg, type, hex] = /IN DS (\d+) (\d+) (\d+) ([0-9A-F]+)/.exec(text)!;
        assert.deepEqual([Number(tag), Number(alg), Number(type)], [keyTag(key.rdata), number, digestType]);
        assert.equal(
          Buffer.from(dsDigest(key.name, key.rdata, digestType)!)
            .toString('hex')
            .toUpperCase(),
          hex,
        );
      }
      assert.equal(dsDigest(key.name, key.rdata, 3), undefined);
    }
  });

  test('tampered data and wrong context fail with the reason', async () => {
    const origin = 'alg13.test.';
    const key = await zoneKey(origin);
    const msg = await fetch(`www.${origin}`, RRType.A);
    const rrset = msg.answer.filter((rr) => rr.type === RRType.A);
    const sig = rrsigsCovering(msg.answer, RRType.A)[0];
    const reason = (set = rrset, s: ResourceRecord<RrsigData> = sig, k = key, now?: number) => {
      const r = verifyRrsig(set, s, k, now);
      return r.ok ? 'ok' : r.reason;
    };
    assert.equal(reason(), 'ok');
    // The TTL a cache shows is not signed; the original TTL is.
    assert.equal(reason(rrset.map((rr) => ({ ...rr, ttl: 5 }))), 'ok');
    // Order and owner case do not matter either.
    assert.equal(reason([...rrset].reverse().map((rr) => ({ ...rr, name: Name.fromString(`WWW.ALG13.test.`) }))), 'ok');
    assert.equal(reason(rrset.map((rr, i) => (i === 0 ? { ...rr, rdata: { address: '192.0.2.1' } } : rr))), 'bad-signature');
    assert.equal(reason(rrset.slice(1)), 'bad-signature');
    const flipped = Uint8Array.from(sig.rdata.signature);
    flipped[10] ^= 1;
    assert.equal(reason(rrset, { ...sig, rdata: { ...sig.rdata, signature: flipped } }), 'bad-signature');
    assert.equal(reason(rrset, { ...sig, rdata: { ...sig.rdata, keyTag: (sig.rdata.keyTag + 1) & 0xffff } }), 'key-tag-mismatch');
    assert.equal(reason(rrset, sig, key, sig.rdata.expiration + 1), 'expired');
    assert.equal(reason(rrset, sig, key, sig.rdata.inception - 1), 'not-yet-valid');
    for (const algorithm of [3, 6, 12, 253]) {
      assert.equal(reason(rrset, { ...sig, rdata: { ...sig.rdata, algorithm } }), 'unsupported-algorithm');
    }
    const otherKey = await zoneKey('alg14.test.');
    assert.equal(reason(rrset, sig, otherKey), 'algorithm-mismatch');
    assert.equal(reason(msg.answer.filter((rr) => rr.type === RRType.A).map((rr) => ({ ...rr, type: RRType.AAAA }))), 'rrset-mismatch');
  });
});

test('key tags and NSEC3 hashes match the RFC examples', () => {
  // RFC 5155 Appendix A: H(example) with salt aabbccdd and 12 iterations.
  const hash = nsec3Hash(Name.fromString('example.'), Uint8Array.of(0xaa, 0xbb, 0xcc, 0xdd), 12);
  assert.equal(base32hexEncode(hash), '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom');
  assert.equal(
    base32hexEncode(nsec3Hash(Name.fromString('a.EXAMPLE.'), Uint8Array.of(0xaa, 0xbb, 0xcc, 0xdd), 12)),
    '35mthgpgcu1qg68fab165klnsnk3dpvl',
  );
  // RFC 4034 §5.4: the DNSKEY of dskey.example.com has key tag 60485.
  const publicKey = Buffer.from(
    'AQOeiiR0GOMYkDshWoSKz9XzfwJr1AYtsmx3TGkJaNXVbfi/2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvxegXd/M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9XzcnOf+EPbtG9DMBmADjFDc2w/rljwvFw==',
    'base64',
  );
  assert.equal(keyTag({ flags: 256, protocol: 3, algorithm: 5, publicKey }), 60485);
  const ds = dsDigest(Name.fromString('dskey.example.com.'), { flags: 256, protocol: 3, algorithm: 5, publicKey }, 1)!;
  assert.equal(Buffer.from(ds).toString('hex').toUpperCase(), '2BB183AF5F22588179A53B0A98631FAD1A292118');
});
