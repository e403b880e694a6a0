// Hostile input: every packet must end in a Message or a DnsDecodeError, quickly. What decodes
// must also survive re-encoding and, for a tenth of the packets, a trip through zone-file text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canonicalRdata,
  decodeMessage,
  DnsDecodeError,
  DnsEncodeError,
  encodeMessage,
  Name,
  parseZoneFile,
  recordToString,
  type ResourceRecord,
  RRClass,
  RRType,
} from '@app/dns';
import { seededRandom as rng } from './helpers/seeded-random.ts';

const SEED = Number(process.env.DNS_FUZZ_SEED ?? 0x5eed);

const corpusZone = `$ORIGIN example.test.
$TTL 300
@ SOA ns1 hostmaster 1 2 3 4 5
@ NS ns1
@ NS ns2
ns1 A 192.0.2.1
ns1 AAAA 2001:db8::1
@ MX 10 mail
@ TXT "hello" "world"
_s._tcp SRV 1 2 3 ns1
@ CAA 0 issue "ca.example"
@ NAPTR 1 2 "S" "SIP" "" ns1
@ DS 1 13 2 0011223344556677889900112233445566778899001122334455667788990011
@ DNSKEY 257 3 13 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw==
@ RRSIG A 13 2 300 20261231000000 20261101000000 1 example.test. AAECAwQ=
@ NSEC a NS SOA RRSIG NSEC DNSKEY
q NSEC3 1 0 0 - 0p9mhaveqvm6t7vbl5lop2u3t2rp3tom A
@ NSEC3PARAM 1 0 0 aabb
@ TYPE65000 \\# 3 010203
`;

function corpus(): Uint8Array[] {
  const records = parseZoneFile(corpusZone);
  const q = [{ name: Name.fromString('example.test.'), type: RRType.ANY, class: RRClass.IN }];
  return [
    encodeMessage({ id: 1, qr: true, aa: true, question: q, answer: records }),
    encodeMessage({
      id: 2,
      qr: true,
      question: q,
      authority: records.slice(0, 5),
      additional: records.slice(5, 9),
      edns: { udpSize: 1232, do: true, options: [{ code: 10, data: new Uint8Array(24) }] },
    }),
    encodeMessage({ id: 3, question: q, edns: { udpSize: 512 } }),
  ];
}

function mutate(packet: Uint8Array, random: () => number): Uint8Array {
  const p = Uint8Array.from(packet);
  const edits = 1 + Math.floor(random() * 4);
  let out = p;
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * out.length);
    switch (Math.floor(random() * 6)) {
      case 0:
        out[at] = Math.floor(random() * 256);
        break; // random byte
      case 1:
        out[at] ^= 1 << Math.floor(random() * 8);
        break; // bit flip
      case 2:
        out = out.slice(0, at);
        break; // truncation
      case 3: {
        out[at] = 0xc0 | Math.floor(random() * 64);
        if (at + 1 < out.length) out[at + 1] = Math.floor(random() * 256);
        break;
      } // pointer
      case 4: {
        if (out.length > 12) out[4 + Math.floor(random() * 8)] = Math.floor(random() * 256);
        break;
      } // a count lies
      default: {
        const junk = Uint8Array.from({ length: 1 + Math.floor(random() * 16) }, () => Math.floor(random() * 256));
        out = Uint8Array.from([...out.slice(0, at), ...junk, ...out.slice(at)]);
      }
    }
  }
  return out;
}

/** Records of a decoded message, written as zone-file text and read back, keep their bytes. */
function textRoundTrip(records: ResourceRecord[], label: string): void {
  for (const rr of records) {
    if (rr.type === RRType.OPT) continue;
    const line = recordToString(rr);
    const [back] = parseZoneFile(line);
    assert.ok(back, `${label}: ${line}`);
    assert.deepEqual(
      [back.name.wire, back.type, back.class, back.ttl, canonicalRdata(back)],
      [rr.name.wire, rr.type, rr.class, rr.ttl, canonicalRdata(rr)],
      `${label}: ${line}`,
    );
  }
}

function check(packet: Uint8Array, label: string, withText: boolean): 'ok' | 'error' {
  const started = performance.now();
  let result: 'ok' | 'error';
  try {
    const message = decodeMessage(packet);
    result = 'ok';
    if (withText) textRoundTrip([...message.answer, ...message.authority, ...message.additional], label);
    // What was decoded can be written again (or refused with a typed error) and read back.
    try {
      decodeMessage(encodeMessage(message));
    } catch (error) {
      if (!(error instanceof DnsEncodeError)) throw error;
    }
  } catch (error) {
    if (!(error instanceof DnsDecodeError)) {
      assert.fail(`${label}: ${String(error)} (replay with DNS_FUZZ_SEED=${SEED})\n${Buffer.from(packet).toString('hex')}`);
    }
    result = 'error';
  }
  const elapsed = performance.now() - started;
  // A slow packet is timed again on its own: a GC pause or a busy machine does not repeat,
  // a pathological input does.
  if (elapsed > 100) assert.ok(decodeTime(packet) < 100, `${label} took ${elapsed.toFixed(1)} ms`);
  return result;
}

function decodeTime(packet: Uint8Array): number {
  const started = performance.now();
  try {
    decodeMessage(packet);
  } catch {
    // Only the time matters here.
  }
  return performance.now() - started;
}

test(`thousands of mutated and random packets end in a message or a DnsDecodeError (seed ${SEED})`, () => {
  const random = rng(SEED);
  const seeds = corpus();
  const tally = { ok: 0, error: 0 };
  for (let i = 0; i < 20000; i++) {
    tally[check(mutate(seeds[i % seeds.length], random), `mutant ${i}`, i % 10 === 0)]++;
  }
  for (let i = 0; i < 5000; i++) {
    const length = Math.floor(random() * 600);
    const packet = Uint8Array.from({ length }, () => Math.floor(random() * 256));
    if (length >= 12 && random() < 0.5) packet.fill(0, 4, 10); // small counts, so records get parsed
    tally[check(packet, `random ${i}`, i % 10 === 0)]++;
  }
  // Both outcomes occur, so the mutations exercise the decoder rather than only its first check.
  assert.ok(tally.ok > 1000 && tally.error > 1000, JSON.stringify(tally));
});

test('compression loops, bad pointers and lying counts', () => {
  const header = (qd: number, an = 0) => [0, 1, 0x81, 0, 0, qd, 0, an, 0, 0, 0, 0];
  const bad: [string, number[]][] = [
    ['pointer to itself', [...header(1), 0xc0, 12, 0, 1, 0, 1]],
    ['two pointers to each other', [...header(1), 0xc0, 14, 0xc0, 12, 0, 1, 0, 1]],
    ['label then pointer back to the label', [...header(1), 1, 0x61, 0xc0, 12, 0, 1, 0, 1]],
    ['pointer past the end', [...header(1), 0xc3, 0xff, 0, 1, 0, 1]],
    ['pointer into the header', [...header(1), 0xc0, 2, 0, 1, 0, 1]],
    ['question count 65535', [...header(255).slice(0, 4), 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1]],
    ['answer count with no answers', [...header(0, 10)]],
  ];
  for (const [what, bytes] of bad) {
    const started = performance.now();
    assert.throws(() => decodeMessage(Uint8Array.from(bytes)), DnsDecodeError, what);
    assert.ok(performance.now() - started < 250, what);
  }
  // Each question's name is one label plus a pointer to the previous name: the chain of pointers
  // grows, and decoding stops at the 255-byte name limit rather than walking it ever longer.
  const chain = [0, 1, 0x81, 0, 0x07, 0xd0, 0, 0, 0, 0, 0, 0, 1, 0x61, 0, 0, 1, 0, 1];
  let previous = 12;
  for (let i = 1; i < 2000; i++) {
    const start = chain.length;
    chain.push(1, 0x62, 0xc0 | (previous >> 8), previous & 0xff, 0, 1, 0, 1);
    previous = start;
  }
  const started = performance.now();
  assert.throws(() => decodeMessage(Uint8Array.from(chain)), /longer than 255/);
  assert.ok(performance.now() - started < 250);
});
