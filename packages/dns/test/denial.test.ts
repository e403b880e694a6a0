// Denial of existence with the example zones of RFC 4035 (Appendix A/B) and RFC 5155 (Appendix A/B),
// the closest-encloser rule of RFC 6840 §4.1, RSA key sizes, and the DS -> DNSKEY -> RRset walk.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  base32hexDecode,
  base32hexEncode,
  checkDs,
  type DnskeyRecord,
  dsDigest,
  keyTag,
  Name,
  nsec3Covers,
  nsec3Hash,
  nsec3Matches,
  type Nsec3Record,
  nsecCovers,
  type NsecRecord,
  proveNsec3NameError,
  proveNsec3NoData,
  proveNsecNameError,
  proveNsecNoData,
  rsaKeySize,
  RRType,
  type RrsigRecord,
  signedData,
  walkChain,
} from '@app/dns';

const n = (text: string): Name => Name.fromString(text.endsWith('.') ? text : `${text}.`);
const example = n('example');
const T = RRType;

describe('NSEC (RFC 4035 Appendix A zone, Appendix B responses)', () => {
  // The NSEC chain of the example zone, in canonical order, with each name's types.
  const chain: [string, number[]][] = [
    ['example', [T.NS, T.SOA, T.MX, T.RRSIG, T.NSEC, T.DNSKEY]],
    ['a.example', [T.NS, T.DS, T.RRSIG, T.NSEC]],
    ['ai.example', [T.A, T.HINFO, T.AAAA, T.RRSIG, T.NSEC]],
    ['b.example', [T.NS, T.RRSIG, T.NSEC]],
    ['ns1.example', [T.A, T.RRSIG, T.NSEC]],
    ['ns2.example', [T.A, T.RRSIG, T.NSEC]],
    ['*.w.example', [T.MX, T.RRSIG, T.NSEC]],
    ['x.w.example', [T.MX, T.RRSIG, T.NSEC]],
    ['x.y.w.example', [T.MX, T.RRSIG, T.NSEC]],
    ['xx.example', [T.A, T.HINFO, T.AAAA, T.RRSIG, T.NSEC]],
  ];
  const nsec = (owner: string): NsecRecord => {
    const i = chain.findIndex(([name]) => name === owner);
    return { name: n(owner), rdata: { nextDomain: n(chain[(i + 1) % chain.length][0]), types: chain[i][1] } };
  };

  test('the chain is in canonical order', () => {
    for (let i = 1; i < chain.length; i++) assert.ok(n(chain[i - 1][0]).compareCanonical(n(chain[i][0])) < 0, chain[i][0]);
  });

  test('B.2 name error: ml.example is covered by b.example, the wildcard *.example by the apex NSEC', () => {
    const records = [nsec('b.example'), nsec('example')];
    assert.ok(nsecCovers(nsec('b.example'), n('ml.example')));
    assert.ok(nsecCovers(nsec('example'), n('*.example')));
    const proof = proveNsecNameError(records, n('ml.example'), example);
    assert.ok(proof.ok);
    assert.equal(proof.closestEncloser.toString(), 'example.');
    assert.equal(proof.wildcard.toString(), '*.example.');
  });

  test('without the NSEC for the wildcard, the name error is not proven', () => {
    assert.deepEqual(proveNsecNameError([nsec('b.example')], n('ml.example'), example).ok, false);
    const proof = proveNsecNameError([nsec('b.example')], n('ml.example'), example);
    assert.ok(!proof.ok && proof.reason === 'wildcard-not-denied');
  });

  test('an NSEC does not cover its own owner or names outside its span; the last one wraps to the apex', () => {
    assert.equal(nsecCovers(nsec('ns1.example'), n('ns1.example')), false);
    assert.equal(nsecCovers(nsec('b.example'), n('ns2.example')), false);
    assert.ok(nsecCovers(nsec('xx.example'), n('zz.example')));
    const proof = proveNsecNameError([nsec('ns1.example'), nsec('example')], n('ns1.example'), example);
    assert.ok(!proof.ok && proof.reason === 'name-not-covered');
  });

  test('B.3 no data: the NSEC at ns1.example lists no MX', () => {
    assert.ok(proveNsecNoData([nsec('ns1.example')], n('ns1.example'), T.MX, example).ok);
    const withA = proveNsecNoData([nsec('ns1.example')], n('ns1.example'), T.A, example);
    assert.ok(!withA.ok && withA.reason === 'type-present');
  });

  test('B.5 unsigned delegation: the NSEC at b.example proves it has no DS', () => {
    assert.ok(proveNsecNoData([nsec('b.example')], n('b.example'), T.DS, example).ok);
  });

  test('B.7 wildcard no data: a.z.w.example is covered, and the wildcard *.w.example has no AAAA', () => {
    const records = [nsec('x.y.w.example'), nsec('*.w.example')];
    assert.ok(nsecCovers(nsec('x.y.w.example'), n('z.w.example')));
    const proof = proveNsecNoData(records, n('a.z.w.example'), T.AAAA, example);
    assert.ok(proof.ok);
    assert.equal(proof.closestEncloser.toString(), 'w.example.');
    const mx = proveNsecNoData(records, n('a.z.w.example'), T.MX, example);
    assert.ok(!mx.ok && mx.reason === 'type-present');
  });

  test('an empty non-terminal: y.w.example has no data, since the next name lies below it', () => {
    assert.ok(proveNsecNoData([nsec('x.w.example')], n('y.w.example'), T.A, example).ok);
  });

  test('RFC 6840 §4.1: the NSEC of a delegation point proves nothing about names below it', () => {
    const proof = proveNsecNameError([nsec('a.example'), nsec('example')], n('z.a.example'), example);
    assert.ok(!proof.ok && proof.reason === 'delegation');
  });
});

describe('NSEC3 (RFC 5155 Appendix A zone: SHA-1, 12 iterations, salt aabbccdd)', () => {
  const salt = Uint8Array.from(Buffer.from('aabbccdd', 'hex'));
  const hash = (name: string): string => base32hexEncode(nsec3Hash(n(name), salt, 12));
  // Names with an NSEC3 record in the example zone and their types (c.example is an opt-out delegation).
  const names: [string, number[]][] = [
    ['example', [T.NS, T.SOA, T.MX, T.RRSIG, T.DNSKEY, T.NSEC3PARAM]],
    ['a.example', [T.NS, T.DS, T.RRSIG]],
    ['ai.example', [T.A, T.HINFO, T.AAAA, T.RRSIG]],
    ['ns1.example', [T.A, T.RRSIG]],
    ['ns2.example', [T.A, T.RRSIG]],
    ['w.example', []],
    ['*.w.example', [T.MX, T.RRSIG]],
    ['x.w.example', [T.MX, T.RRSIG]],
    ['y.w.example', []],
    ['x.y.w.example', [T.MX, T.RRSIG]],
    ['xx.example', [T.A, T.HINFO, T.AAAA, T.RRSIG]],
  ];
  const hashed = names.map(([name, types]) => ({ name, types, hash: hash(name) })).sort((a, b) => (a.hash < b.hash ? -1 : 1));
  const record = (name: string): Nsec3Record => {
    const i = hashed.findIndex((h) => h.name === name);
    const next = hashed[(i + 1) % hashed.length];
    return {
      name: n(`${hashed[i].hash}.example`),
      rdata: { hashAlgorithm: 1, flags: 1, iterations: 12, salt, nextHashed: base32hexDecode(next.hash)!, types: hashed[i].types },
    };
  };

  test('hashes agree with the values RFC 5155 Appendix A publishes', () => {
    assert.equal(hash('example'), '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom');
    assert.equal(hash('a.example'), '35mthgpgcu1qg68fab165klnsnk3dpvl');
    assert.equal(hash('ai.example'), 'gjeqe526plbf1g8mklp59enfd789njgi');
    assert.equal(hash('ns1.example'), '2t7b4g4vsa5smi47k61mv5bv1a22bojr');
    assert.equal(hash('ns2.example'), 'q04jkcevqvmu85r014c7dkba38o0ji5r');
    assert.equal(hash('w.example'), 'k8udemvp1j2f7eg6jebps17vp3n8i58h');
    assert.equal(hash('*.w.example'), 'r53bq7cc2uvmubfu5ocmm6pers9tk9en');
    assert.equal(hash('x.w.example'), 'b4um86eghhds6nea196smvmlo4ors995');
    assert.equal(hash('y.w.example'), 'ji6neoaepv8b5o6k4ev33abha8ht9fgc');
    assert.equal(hash('x.y.w.example'), '2vptu5timamqttgl4luu9kg21e0aor3s');
    assert.equal(hash('xx.example'), 't644ebqk9bibcna874givr6joj62mlhv');
  });

  test('B.1 name error: a.c.x.w.example — closest encloser x.w.example, next closer and wildcard covered', () => {
    const records = [record('example'), record('x.w.example'), record('a.example')];
    assert.ok(nsec3Matches(record('x.w.example'), n('x.w.example')));
    assert.ok(nsec3Covers(record('example'), n('c.x.w.example')));
    assert.ok(nsec3Covers(record('a.example'), n('*.x.w.example')));
    const proof = proveNsec3NameError(records, n('a.c.x.w.example'), example);
    assert.ok(proof.ok);
    assert.equal(proof.closestEncloser.toString(), 'x.w.example.');
    assert.equal(proof.nextCloser?.toString(), 'c.x.w.example.');
    assert.equal(proof.wildcard.toString(), '*.x.w.example.');
  });

  test('B.1 without the record covering the next closer name, or the wildcard, the proof fails', () => {
    const noNextCloser = proveNsec3NameError([record('x.w.example'), record('a.example')], n('a.c.x.w.example'), example);
    assert.ok(!noNextCloser.ok && noNextCloser.reason === 'next-closer-not-covered');
    const noWildcard = proveNsec3NameError([record('example'), record('x.w.example')], n('a.c.x.w.example'), example);
    assert.ok(!noWildcard.ok && noWildcard.reason === 'wildcard-not-denied');
    const noEncloser = proveNsec3NameError([record('a.example')], n('a.c.x.w.example'), example);
    assert.ok(!noEncloser.ok && noEncloser.reason === 'no-closest-encloser');
  });

  test('B.2 no data: ns1.example has no MX; B.2.1 the empty non-terminal y.w.example has no A', () => {
    assert.ok(proveNsec3NoData([record('ns1.example')], n('ns1.example'), T.MX, example).ok);
    assert.ok(proveNsec3NoData([record('y.w.example')], n('y.w.example'), T.A, example).ok);
    const a = proveNsec3NoData([record('ns1.example')], n('ns1.example'), T.A, example);
    assert.ok(!a.ok && a.reason === 'type-present');
  });

  test('B.4/B.5 wildcard: z.w.example is covered; the wildcard *.w.example has no AAAA', () => {
    assert.ok(nsec3Covers(record('ns2.example'), n('z.w.example')));
    const records = [record('w.example'), record('ns2.example'), record('*.w.example')];
    const proof = proveNsec3NoData(records, n('a.z.w.example'), T.AAAA, example);
    assert.ok(proof.ok);
    assert.equal(proof.closestEncloser.toString(), 'w.example.');
    assert.equal(proof.nextCloser?.toString(), 'z.w.example.');
  });

  test('RFC 6840 §4.1: a delegation (a.example: NS, no SOA) cannot be the closest encloser', () => {
    const proof = proveNsec3NameError([record('a.example'), record('example')], n('b.a.example'), example);
    assert.ok(!proof.ok && proof.reason === 'delegation');
  });

  test('a record never covers the hash it is named by, nor names outside its zone', () => {
    assert.equal(nsec3Covers(record('example'), n('example')), false);
    assert.equal(nsec3Covers(record('example'), n('c.x.w.other')), false);
  });
});

test('RSA key size counts the modulus after the exponent, in both exponent length forms', () => {
  const modulus = new Uint8Array(128).fill(0xff);
  const short = Uint8Array.from([3, 1, 0, 1, ...modulus]);
  const long = Uint8Array.from([0, 0, 3, 1, 0, 1, ...modulus, ...new Uint8Array(128).fill(0xff)]);
  assert.equal(rsaKeySize({ flags: 257, protocol: 3, algorithm: 8, publicKey: short }), 1024);
  assert.equal(rsaKeySize({ flags: 257, protocol: 3, algorithm: 5, publicKey: long }), 2048);
  assert.equal(rsaKeySize({ flags: 257, protocol: 3, algorithm: 13, publicKey: new Uint8Array(64) }), undefined);
});

describe('the DS -> DNSKEY -> RRset walk', () => {
  const owner = n('chain.example');
  const now = 1_800_000_000;
  const makeKey = (flags: number): { record: DnskeyRecord; privateKey: KeyObject } => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const raw = Uint8Array.from([...Buffer.from(jwk.x!, 'base64url'), ...Buffer.from(jwk.y!, 'base64url')]);
    return {
      record: { name: owner, type: T.DNSKEY, class: 1, ttl: 3600, rdata: { flags, protocol: 3, algorithm: 13, publicKey: raw } },
      privateKey: createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' })),
    };
  };
  const ksk = makeKey(257);
  const zsk = makeKey(256);
  const dnskeys = [ksk.record, zsk.record];
  const soa = [
    {
      name: owner,
      type: T.SOA,
      class: 1,
      ttl: 3600,
      rdata: { mname: n('ns1.chain.example'), rname: n('h.chain.example'), serial: 1, refresh: 2, retry: 3, expire: 4, minimum: 5 },
    },
  ];
  const signWith = (
    key: { record: DnskeyRecord; privateKey: KeyObject },
    rrset: { type: number }[],
    window: [number, number] = [now - 3600, now + 86400],
  ): RrsigRecord => {
    const rdata = {
      typeCovered: rrset[0].type,
      algorithm: 13,
      labels: 2,
      originalTtl: 3600,
      expiration: window[1],
      inception: window[0],
      keyTag: keyTag(key.record.rdata),
      signerName: owner,
      signature: new Uint8Array(0),
    };
    const signature = sign('sha256', signedData(rrset as never, rdata), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
    return { name: owner, type: T.RRSIG, class: 1, ttl: 3600, rdata: { ...rdata, signature } };
  };
  const dsFor = (key: DnskeyRecord) => ({
    keyTag: keyTag(key.rdata),
    algorithm: 13,
    digestType: 2,
    digest: dsDigest(owner, key.rdata, 2)!,
  });

  test('a DS for the KSK that signs the DNSKEY set, and the ZSK signing the SOA: the chain holds', () => {
    const result = walkChain({
      owner,
      ds: [dsFor(ksk.record)],
      dnskeys,
      dnskeyRrsigs: [signWith(ksk, dnskeys)],
      rrset: soa,
      rrsetRrsigs: [signWith(zsk, soa)],
      now,
    });
    assert.ok(result.ok);
  });

  test('each failing step says why', () => {
    const base = { owner, dnskeys, dnskeyRrsigs: [signWith(ksk, dnskeys)], now };
    const reasons = [
      walkChain({ ...base, ds: [] }),
      walkChain({ ...base, ds: [{ ...dsFor(ksk.record), keyTag: (keyTag(ksk.record.rdata) + 1) % 65536 }] }),
      walkChain({ ...base, ds: [{ ...dsFor(ksk.record), digest: new Uint8Array(32) }] }),
      walkChain({ ...base, ds: [dsFor(zsk.record)] }),
      walkChain({ ...base, ds: [dsFor(ksk.record)], dnskeyRrsigs: [signWith(ksk, dnskeys, [now - 7200, now - 3600])] }),
      walkChain({ ...base, ds: [dsFor(ksk.record)], rrset: soa, rrsetRrsigs: [] }),
      walkChain({ ...base, ds: [dsFor(ksk.record)], rrset: soa, rrsetRrsigs: [signWith(zsk, dnskeys)] }),
    ].map((r) => (r.ok ? 'ok' : `${r.step}:${r.reason}`));
    assert.deepEqual(reasons, [
      'ds:no-ds',
      'ds:no-dnskey-for-ds',
      'ds:digest-mismatch',
      'dnskey:dnskey-not-signed',
      'dnskey:dnskey-signature-invalid',
      'rrset:rrset-not-signed',
      'rrset:rrset-signature-invalid',
    ]);
  });

  test('checkDs reports a key without the SEP flag, and one that is no zone key', () => {
    const check = checkDs(owner, dsFor(zsk.record), dnskeys, [signWith(zsk, dnskeys)], now);
    assert.equal(check.digest, 'match');
    assert.equal(check.sep, false);
    assert.ok(check.signatures.length === 1 && check.signatures[0].result.ok);
    const nonZone = { ...ksk.record, rdata: { ...ksk.record.rdata, flags: 1 } };
    const bad = checkDs(owner, dsFor(nonZone), [nonZone], [], now);
    assert.equal(bad.zoneKey, false);
  });
});
