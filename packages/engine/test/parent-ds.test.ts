// The rules a parent follows with the child's CDS/CDNSKEY (RFC 7344 §4.1, RFC 8078), on records signed
// here with throw-away P-256 keys: what to publish, when to remove everything, and each reason to refuse.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { test } from 'node:test';
import { dsDigest, keyTag, Name, RRType, signedData, type DnskeyData, type DsData, type ResourceRecord } from '@app/dns';
import type { Dnskey, Rrsig } from '../src/checks/dnssec/records.ts';
import type { ChildKeySets } from '../src/checks/dnssec/servers.ts';
import { parentDsVerdict, type DsRecord } from '../src/checks/automation/parent-ds.ts';

const zone = Name.fromString('child.example.');
const time = 1_800_000_000;

interface Key {
  record: Dnskey;
  privateKey: KeyObject;
}
function makeKey(flags: number): Key {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const raw = Uint8Array.from([...Buffer.from(jwk.x!, 'base64url'), ...Buffer.from(jwk.y!, 'base64url')]);
  const rdata: DnskeyData = { flags, protocol: 3, algorithm: 13, publicKey: raw };
  return {
    record: { name: zone, type: RRType.DNSKEY, class: 1, ttl: 3600, rdata, raw: new Uint8Array() },
    privateKey: createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' })),
  };
}
const rr = <D extends DsData | DnskeyData>(type: number, rdata: D): ResourceRecord<D> => ({
  name: zone,
  type,
  class: 1,
  ttl: 3600,
  rdata,
  raw: new Uint8Array(),
});
function signWith(key: Key, rrset: readonly ResourceRecord[]): Rrsig {
  const rdata = {
    typeCovered: rrset[0].type,
    algorithm: 13,
    labels: 2,
    originalTtl: 3600,
    expiration: time + 86400,
    inception: time - 3600,
    keyTag: keyTag(key.record.rdata),
    signerName: zone,
    signature: new Uint8Array(0),
  };
  const signature = sign('sha256', signedData(rrset, rdata), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return { name: zone, type: RRType.RRSIG, class: 1, ttl: 3600, rdata: { ...rdata, signature }, raw: new Uint8Array() };
}
const dsOf = (key: Key, digestType = 2): DsData => ({
  keyTag: keyTag(key.record.rdata),
  algorithm: 13,
  digestType,
  digest: dsDigest(zone, key.record.rdata, digestType)!,
});

const ksk = makeKey(257);
const zsk = makeKey(256);
const newKsk = makeKey(257);
const dnskeys = [ksk.record, zsk.record, newKsk.record];

/** A server's answers: the CDS/CDNSKEY given, signed by `signers` (the KSK unless said), with the DNSKEY RRset signed by both KSKs. */
function answers(cds: DsData[], cdnskey: DnskeyData[], signers: Key[] = [ksk]): ChildKeySets {
  const cdsSet = cds.map((d) => rr(RRType.CDS, d));
  const cdnskeySet = cdnskey.map((k) => rr(RRType.CDNSKEY, k));
  return {
    cds: { records: cdsSet, rrsigs: cdsSet.length > 0 ? signers.map((k) => signWith(k, cdsSet)) : [] },
    cdnskey: { records: cdnskeySet, rrsigs: cdnskeySet.length > 0 ? signers.map((k) => signWith(k, cdnskeySet)) : [] },
    dnskey: { records: dnskeys, rrsigs: [signWith(ksk, dnskeys), signWith(newKsk, dnskeys)] },
  };
}
const current: DsRecord[] = [{ ttl: 86400, rdata: dsOf(ksk) }];
const verdict = (servers: (ChildKeySets | undefined)[], ds: DsRecord[] = current) =>
  parentDsVerdict({ zone, current: ds, servers: new Map(servers.map((s, i) => [`ns${i + 1}.example./192.0.2.${i + 1}`, s])), time });

test('a CDS for a new KSK, signed by the key the DS names: publish it, with the TTL of the DS RRset the parent has', () => {
  const v = verdict([answers([dsOf(newKsk)], [newKsk.record.rdata])]);
  assert.equal(v.action, 'publish');
  assert.deepEqual(v.ds, [{ ttl: 86400, rdata: dsOf(newKsk) }]);
});

test('CDS for the keys the parent already names: nothing to change', () => {
  assert.equal(verdict([answers([dsOf(ksk)], [])]).tag, 'PARENT_DS_UNCHANGED');
  assert.equal(verdict([answers([], [])]).tag, 'PARENT_DS_NO_CDS');
});

test('CDNSKEY alone becomes SHA-256 DS', () => {
  const v = verdict([answers([], [newKsk.record.rdata])]);
  assert.deepEqual(
    v.ds.map((d) => d.rdata),
    [dsOf(newKsk, 2)],
  );
});

test('the delete pair of RFC 8078 asks for every DS to go, but not beside other records nor where there is none', () => {
  const deleteCds: DsData = { keyTag: 0, algorithm: 0, digestType: 0, digest: Uint8Array.of(0) };
  const deleteKey: DnskeyData = { flags: 0, protocol: 3, algorithm: 0, publicKey: Uint8Array.of(0) };
  assert.equal(verdict([answers([deleteCds], [deleteKey])]).action, 'remove');
  assert.equal(verdict([answers([deleteCds, dsOf(ksk)], [])]).tag, 'PARENT_DS_MIXED_DELETE');
  assert.equal(verdict([answers([deleteCds], [deleteKey])], []).tag, 'PARENT_DS_ALREADY_INSECURE');
});

test('every server must answer, and answer the same', () => {
  const a = answers([dsOf(newKsk)], []);
  assert.deepEqual(verdict([a, undefined]), {
    action: 'none',
    ds: [],
    tag: 'PARENT_DS_NO_ANSWER',
    args: { ns_list: 'ns2.example./192.0.2.2' },
  });
  assert.equal(verdict([a, a, answers([dsOf(ksk)], [])]).tag, 'PARENT_DS_INCONSISTENT');
  assert.equal(verdict([a, a, answers([dsOf(ksk)], [])]).args.ns_list, 'ns3.example./192.0.2.3');
});

test('only a key the current DS names may vouch for the CDS and CDNSKEY, and for the DNSKEY RRset', () => {
  assert.equal(verdict([answers([dsOf(newKsk)], [], [zsk])]).tag, 'PARENT_DS_NOT_SIGNED_BY_DS_KEY');
  assert.equal(verdict([answers([dsOf(newKsk)], [], [])]).tag, 'PARENT_DS_NOT_SIGNED_BY_DS_KEY', 'unsigned');
  const stranger = makeKey(257);
  assert.equal(verdict([answers([dsOf(newKsk)], [])], [{ ttl: 86400, rdata: dsOf(stranger) }]).tag, 'PARENT_DS_DNSKEY_NOT_TRUSTED');
});

test('the new DS RRset must keep the zone validating and give every key the same digest types', () => {
  // The ZSK does not sign the DNSKEY RRset: a DS set naming only it would break the chain.
  assert.deepEqual(verdict([answers([dsOf(zsk)], [])]).tag, 'PARENT_DS_BREAKS_CHAIN');
  assert.equal(verdict([answers([dsOf(ksk, 2), dsOf(ksk, 4), dsOf(newKsk, 2)], [])]).tag, 'PARENT_DS_UNEVEN_DIGESTS');
  assert.equal(verdict([answers([dsOf(ksk, 2), dsOf(ksk, 4), dsOf(newKsk, 2), dsOf(newKsk, 4)], [])]).action, 'publish');
});
