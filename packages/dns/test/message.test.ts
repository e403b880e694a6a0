import assert from 'node:assert/strict';
import { test } from 'node:test';
import dnsPacket from 'dns-packet';
import {
  decodeMessage,
  DnsDecodeError,
  encodeMessage,
  EdnsOption,
  Name,
  parseCookieOption,
  RRClass,
  recordIs,
  RRType,
  type MessageInput,
  type RecordInput,
  type ResourceRecord,
} from '@app/dns';

const n = (t: string) => Name.fromString(t);
const bytes = (...b: number[]) => Uint8Array.from(b);
const text = (s: string) => new TextEncoder().encode(s);

function rr(name: string, type: number, rdata: RecordInput['rdata'], ttl = 3600): RecordInput {
  return { name: n(name), type, class: RRClass.IN, ttl, rdata };
}

/** One record of every type the engine needs, plus an unknown type. */
const everyType: RecordInput[] = [
  rr('example.com.', RRType.A, { address: '192.0.2.1' }),
  rr('example.com.', RRType.AAAA, { address: '2001:db8::1:0:0:1' }),
  rr('example.com.', RRType.NS, { target: n('ns1.Example.com.') }),
  rr('www.example.com.', RRType.CNAME, { target: n('example.com.') }),
  rr('d.example.com.', RRType.DNAME, { target: n('example.net.') }),
  rr('example.com.', RRType.SOA, {
    mname: n('ns1.example.com.'),
    rname: n('hostmaster.example.com.'),
    serial: 2026112101,
    refresh: 7200,
    retry: 3600,
    expire: 1209600,
    minimum: 300,
  }),
  rr('example.com.', RRType.MX, { preference: 10, exchange: n('mail.example.com.') }),
  rr('example.com.', RRType.TXT, { strings: [text('v=spf1 -all'), new Uint8Array(0), bytes(0, 255, 34)] }),
  rr('example.com.', RRType.SPF, { strings: [text('v=spf1 -all')] }),
  rr('1.2.0.192.in-addr.arpa.', RRType.PTR, { target: n('example.com.') }),
  rr('_sip._tcp.example.com.', RRType.SRV, { priority: 1, weight: 2, port: 5060, target: n('sip.example.com.') }),
  rr('example.com.', RRType.CAA, { flags: 128, tag: 'issue', value: text('ca.example.net') }),
  rr('example.com.', RRType.HINFO, { cpu: text('INTEL'), os: text('Linux') }),
  rr('example.com.', RRType.NAPTR, {
    order: 100,
    preference: 10,
    flags: text('S'),
    services: text('SIP+D2U'),
    regexp: new Uint8Array(0),
    replacement: n('_sip._udp.example.com.'),
  }),
  rr('_443._tcp.example.com.', RRType.TLSA, { usage: 3, selector: 1, matchingType: 1, data: new Uint8Array(32).fill(0xab) }),
  rr('example.com.', RRType.SSHFP, { algorithm: 4, fingerprintType: 2, fingerprint: new Uint8Array(32).fill(7) }),
  rr('example.com.', RRType.DS, { keyTag: 12345, algorithm: 13, digestType: 2, digest: new Uint8Array(32).fill(1) }),
  rr('example.com.', RRType.CDS, { keyTag: 0, algorithm: 0, digestType: 0, digest: bytes(0) }),
  rr('example.com.', RRType.DNSKEY, { flags: 257, protocol: 3, algorithm: 13, publicKey: new Uint8Array(64).fill(9) }),
  rr('example.com.', RRType.CDNSKEY, { flags: 0, protocol: 3, algorithm: 0, publicKey: bytes(0) }),
  rr('example.com.', RRType.RRSIG, {
    typeCovered: RRType.A,
    algorithm: 13,
    labels: 2,
    originalTtl: 3600,
    expiration: 0xfffffff0,
    inception: 1,
    keyTag: 12345,
    signerName: n('example.com.'),
    signature: new Uint8Array(64).fill(3),
  }),
  rr('example.com.', RRType.NSEC, {
    nextDomain: n('a.example.com.'),
    types: [RRType.A, RRType.NS, RRType.SOA, RRType.RRSIG, RRType.NSEC, RRType.DNSKEY, RRType.CAA, 65534],
  }),
  rr('q0ab.example.com.', RRType.NSEC3, {
    hashAlgorithm: 1,
    flags: 1,
    iterations: 0,
    salt: bytes(0xaa, 0xbb),
    nextHashed: new Uint8Array(20).fill(5),
    types: [RRType.A, RRType.RRSIG],
  }),
  rr('example.com.', RRType.NSEC3PARAM, { hashAlgorithm: 1, flags: 0, iterations: 0, salt: new Uint8Array(0) }),
  rr('example.com.', 65280, bytes(1, 2, 3, 4)),
  rr('empty.example.com.', 65281, new Uint8Array(0)),
];

function withoutRaw(records: ResourceRecord[]) {
  return records.map(({ raw: _raw, ...rest }) => rest);
}

test('every record type survives encode and decode, with raw rdata kept', () => {
  const input: MessageInput = {
    id: 0xbeef,
    qr: true,
    opcode: 0,
    aa: true,
    rd: true,
    ra: true,
    ad: true,
    rcode: 0,
    question: [{ name: n('example.com.'), type: RRType.ANY, class: RRClass.IN }],
    answer: everyType,
  };
  const wire = encodeMessage(input);
  const decoded = decodeMessage(wire);
  assert.equal(decoded.id, 0xbeef);
  assert.deepEqual(
    [decoded.qr, decoded.aa, decoded.tc, decoded.rd, decoded.ra, decoded.ad, decoded.cd],
    [true, true, false, true, true, true, false],
  );
  assert.deepEqual(withoutRaw(decoded.answer), everyType);
  // Re-encoding what was decoded gives the same bytes.
  assert.deepEqual(encodeMessage(decoded), wire);
  const unknown = decoded.answer.find((r) => r.type === 65280)!;
  assert.deepEqual(unknown.raw, bytes(1, 2, 3, 4));
  const a = decoded.answer[0];
  assert.deepEqual(a.raw, bytes(192, 0, 2, 1));
  const mx = decoded.answer.find((r) => recordIs(r, RRType.MX));
  assert.ok(mx && recordIs(mx, RRType.MX));
  assert.equal(mx.rdata.exchange.toString(), 'mail.example.com.');
});

test('names are compressed, and only in RFC 1035 types', () => {
  const msg: MessageInput = {
    question: [{ name: n('example.com.'), type: RRType.NS, class: RRClass.IN }],
    answer: [
      rr('example.com.', RRType.NS, { target: n('ns1.example.com.') }),
      rr('example.com.', RRType.NS, { target: n('ns2.example.com.') }),
    ],
  };
  const wire = encodeMessage(msg);
  // header 12 + question 17 + 2 × (owner pointer 2 + 10 + "ns1" label 4 + pointer 2).
  assert.equal(wire.length, 12 + 17 + 2 * 18);
  const srv = encodeMessage({
    answer: [
      rr('example.com.', RRType.A, { address: '192.0.2.1' }),
      rr('x.example.com.', RRType.SRV, { priority: 0, weight: 0, port: 1, target: n('example.com.') }),
    ],
  });
  // The SRV target is written in full (13 bytes), not as a pointer.
  assert.equal(decodeMessage(srv).answer[1].raw.length, 6 + 13);
});

test('compression keeps the case of every name', () => {
  const names = ['Example.COM.', 'example.com.', 'www.example.com.', 'WWW.Example.COM.', 'mail.Example.COM.'];
  const m = decodeMessage(encodeMessage({ answer: names.map((t) => rr(t, RRType.NS, { target: n(t) })) }));
  assert.deepEqual(
    m.answer.map((r) => r.name.toString()),
    names,
  );
  assert.deepEqual(
    m.answer.map((r) => (recordIs(r, RRType.NS) ? r.rdata.target.toString() : '')),
    names,
  );
});

test('EDNS: version, payload size, DO, other flags, extended rcode and options', () => {
  const cookie = bytes(1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18);
  const wire = encodeMessage({
    id: 1,
    qr: true,
    rcode: 16 /* BADVERS */,
    edns: {
      udpSize: 1400,
      version: 1,
      do: true,
      flags: 0x0001,
      options: [
        { code: EdnsOption.NSID, data: text('ns-1') },
        { code: EdnsOption.COOKIE, data: cookie },
        { code: 65001, data: bytes(9) },
      ],
    },
  });
  const m = decodeMessage(wire);
  assert.equal(m.rcode, 16);
  assert.deepEqual(m.edns, {
    version: 1,
    udpSize: 1400,
    do: true,
    flags: 0x8001,
    options: [
      { code: EdnsOption.NSID, data: text('ns-1') },
      { code: EdnsOption.COOKIE, data: cookie },
      { code: 65001, data: bytes(9) },
    ],
  });
  assert.equal(m.additional.length, 0);
  const c = parseCookieOption(m.edns.options[1]);
  assert.deepEqual([c.client, c.server, c.wellFormed], [cookie.subarray(0, 8), cookie.subarray(8), true]);
  // dns-packet reads the same OPT record.
  const peer = dnsPacket.decode(Buffer.from(wire));
  const opt = peer.additionals?.[0] as { udpPayloadSize: number; flags: number } | undefined;
  assert.equal(opt?.udpPayloadSize, 1400);
});

test('any header flag combination can be encoded, including the Z bit and odd opcodes', () => {
  const m = decodeMessage(
    encodeMessage({ id: 65535, qr: false, opcode: 15, aa: true, tc: true, rd: false, ra: true, z: true, ad: false, cd: true, rcode: 15 }),
  );
  assert.deepEqual(
    [m.id, m.qr, m.opcode, m.aa, m.tc, m.rd, m.ra, m.z, m.ad, m.cd, m.rcode],
    [65535, false, 15, true, true, false, true, true, false, true, 15],
  );
  // Verbatim rdata bytes for a known type, e.g. a deliberately short A record.
  const odd = decodeMessage.bind(null, encodeMessage({ answer: [rr('x.', RRType.A, bytes(1, 2, 3))] }));
  assert.throws(odd, DnsDecodeError);
});

test('interoperates with dns-packet in both directions', () => {
  const theirs = dnsPacket.encode({
    type: 'response',
    id: 7,
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    questions: [{ type: 'MX', name: 'example.org' }],
    answers: [
      { type: 'MX', name: 'example.org', ttl: 60, data: { preference: 5, exchange: 'mx.example.org' } },
      { type: 'TXT', name: 'example.org', ttl: 60, data: ['hello', 'world'] },
      { type: 'AAAA', name: 'example.org', ttl: 60, data: '2001:db8::5' },
    ],
  });
  const m = decodeMessage(new Uint8Array(theirs));
  assert.equal(m.aa, true);
  assert.deepEqual(withoutRaw(m.answer), [
    rr('example.org.', RRType.MX, { preference: 5, exchange: n('mx.example.org.') }, 60),
    rr('example.org.', RRType.TXT, { strings: [text('hello'), text('world')] }, 60),
    rr('example.org.', RRType.AAAA, { address: '2001:db8::5' }, 60),
  ]);
  const back = dnsPacket.decode(Buffer.from(encodeMessage(m)));
  assert.deepEqual(
    back.answers?.map((a) => [a.name, a.type]),
    [
      ['example.org', 'MX'],
      ['example.org', 'TXT'],
      ['example.org', 'AAAA'],
    ],
  );
});

test('hostile packets are typed errors', () => {
  const header = (qd: number, an = 0) => bytes(0, 1, 0x81, 0, 0, qd, 0, an, 0, 0, 0, 0);
  const cases: [string, Uint8Array][] = [
    ['short header', bytes(0, 1, 2)],
    ['compression loop', Uint8Array.from([...header(1), 0xc0, 12, 0, 1, 0, 1])],
    ['forward pointer', Uint8Array.from([...header(1), 0xc0, 20, 0, 1, 0, 1, 0, 0, 0, 0])],
    ['out-of-bounds pointer', Uint8Array.from([...header(1), 0xff, 0xff, 0, 1, 0, 1])],
    ['truncated label', Uint8Array.from([...header(1), 5, 0x61])],
    ['lying question count', Uint8Array.from([...header(3), 0, 0, 1, 0, 1])],
    ['lying answer count', Uint8Array.from([...header(0, 200)])],
    ['rdlength past the end', Uint8Array.from([...header(0, 1), 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 50, 1, 2])],
    ['reserved label type', Uint8Array.from([...header(1), 0x40, 0, 0, 1, 0, 1])],
  ];
  for (const [what, packet] of cases) assert.throws(() => decodeMessage(packet), DnsDecodeError, what);
});
