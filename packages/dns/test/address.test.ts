// Address text without node:net's regular expressions: it must accept and reject exactly what
// node:net's isIP does (zone indexes aside), and read each address as the URL parser does.
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { test } from 'node:test';
import { decodeMessage, encodeMessage, ipBytes, ipFamily, Name, RRClass, RRType, sameIpAddress } from '@app/dns';
import { seededRandom as rng } from './helpers/seeded-random.ts';

const SEED = Number(process.env.DNS_FUZZ_SEED ?? 0xadd7);

/** The RFC 5952 text of an IPv6 address, as the WHATWG URL parser writes it. */
const canonical = (address: string): string => new URL(`http://[${address}]`).hostname.slice(1, -1);

const edgeCases = [
  '',
  '.',
  ':',
  '::',
  ':::',
  '::1',
  '1::',
  '1::1',
  '::ffff:192.0.2.1',
  '::192.0.2.1',
  '1:2:3:4:5:6:7:8',
  '1:2:3:4:5:6:7::',
  '::2:3:4:5:6:7:8',
  '1:2:3:4:5:6:7:8:9',
  '1:2:3:4:5:6:7',
  '1::2::3',
  ':1::',
  '1::2:',
  '12345::',
  'g::',
  'FFFF::',
  '1:2:3:4:5:6:192.0.2.1',
  '1:2:3:4:5:6:7:192.0.2.1',
  '192.0.2.1::',
  '::192.0.2',
  '::256.0.0.1',
  '::01.2.3.4',
  '0.0.0.0',
  '255.255.255.255',
  '256.0.0.0',
  '01.2.3.4',
  '1.2.3',
  '1.2.3.4.5',
  '1..2.3',
  '1.2.3.4.',
  ' 1.2.3.4',
  '1.2.3.4 ',
  '2001:db8::1',
  '2001:DB8:0:0:0:0:0:1',
  'fe80::1%eth0',
  '[::1]',
  '0x1.2.3.4',
  '١.٢.٣.٤',
];

test('ipFamily agrees with node:net isIP on the edge cases (zone indexes are no server address)', () => {
  for (const text of edgeCases) {
    const expected = text.includes('%') ? 0 : isIP(text);
    assert.equal(ipFamily(text), expected, JSON.stringify(text));
  }
});

test('ipFamily agrees with node:net isIP on random text, and every IPv6 address reads as the URL parser reads it', () => {
  const random = rng(SEED);
  const alphabet = '0123456789abcdefABCDEFg:.:.::';
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  let valid = 0;
  for (let i = 0; i < 30_000; i++) {
    let text: string;
    if (i % 2 === 0) {
      text = Array.from({ length: Math.floor(random() * 40) }, () => pick([...alphabet])).join('');
    } else {
      // Near-misses of real addresses: groups of 0 to 5 hex digits, with "::" and an IPv4 tail now and then.
      const groups = Array.from({ length: 1 + Math.floor(random() * 9) }, () =>
        Array.from({ length: Math.floor(random() * 6) }, () => pick([...'0123456789abcdefABCDEF'])).join(''),
      );
      if (random() < 0.5) groups.splice(Math.floor(random() * groups.length), 0, '');
      if (random() < 0.3) groups.push(Array.from({ length: 4 }, () => String(Math.floor(random() * 300))).join('.'));
      text = groups.join(':');
    }
    assert.equal(ipFamily(text), isIP(text), JSON.stringify(text));
    if (isIP(text) === 6) {
      valid++;
      const bytes = ipBytes(text);
      assert.ok(bytes);
      assert.equal(
        canonical(Array.from({ length: 8 }, (_, g) => ((bytes[g * 2] << 8) | bytes[g * 2 + 1]).toString(16)).join(':')),
        canonical(text),
        text,
      );
    }
  }
  assert.ok(valid > 1000, `only ${valid} valid IPv6 addresses were tried`);
});

test('sameIpAddress: one address in different IPv6 forms is the same, different addresses and families are not', () => {
  assert.equal(sameIpAddress('2001:db8::1', '2001:DB8:0:0:0:0:0:1'), true);
  assert.equal(sameIpAddress('::ffff:192.0.2.1', '::FFFF:c000:201'), true);
  assert.equal(sameIpAddress('192.0.2.1', '192.0.2.1'), true);
  assert.equal(sameIpAddress('2001:db8::1', '2001:db8::2'), false);
  assert.equal(sameIpAddress('192.0.2.1', '::ffff:192.0.2.1'), false);
  assert.equal(sameIpAddress('not an address', 'not an address either'), false);
});

test('AAAA rdata: any IPv6 form is written as its bytes and read back in the RFC 5952 form; bad text is refused', () => {
  const message = (address: string) =>
    encodeMessage({
      id: 1,
      answer: [{ name: Name.fromString('a.test.'), type: RRType.AAAA, class: RRClass.IN, ttl: 1, rdata: { address } }],
    });
  const [answer] = decodeMessage(message('2001:0DB8:0000:0000:0000:0000:0000:0001')).answer;
  assert.deepEqual(answer?.rdata, { address: '2001:db8::1' });
  assert.throws(() => message('2001:db8::1%eth0'), /not an IPv6 address/);
  assert.throws(() => message('1::2::3'), /not an IPv6 address/);
});
