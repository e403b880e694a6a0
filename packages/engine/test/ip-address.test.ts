// Address helpers (reverse names, prefixes in the reference's short form, prefix membership) and the
// special-purpose registries Address01 reads, at the edges of their blocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ipv6Nibbles, prefixMatcher, reverseName, shortPrefix } from '../src/net/ip-address.ts';
import { specialPurposeBlock } from '../src/net/special-purpose-addresses.ts';

test('IPv6 nibbles: compressed, full, all-zero, upper case and IPv4-tailed forms give the same 32 digits', () => {
  const expected = '20010db8000000000000000000000001'.split('');
  assert.deepEqual(ipv6Nibbles('2001:db8::1'), expected);
  assert.deepEqual(ipv6Nibbles('2001:0DB8:0000:0000:0000:0000:0000:0001'), expected);
  assert.deepEqual(ipv6Nibbles('::'), Array<string>(32).fill('0'));
  assert.deepEqual(ipv6Nibbles('::1').join(''), `${'0'.repeat(31)}1`);
  assert.deepEqual(ipv6Nibbles('fe80::').join(''), `fe80${'0'.repeat(28)}`);
  assert.equal(ipv6Nibbles('::ffff:192.0.2.1').join(''), `${'0'.repeat(20)}ffffc0000201`);
  assert.equal(ipv6Nibbles('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff').join(''), 'f'.repeat(32));
});

test('reverse names: in-addr.arpa octets and ip6.arpa nibbles, least significant first', () => {
  assert.equal(reverseName('192.0.2.1').toString(), '1.2.0.192.in-addr.arpa.');
  assert.equal(reverseName('0.0.0.0').toString(), '0.0.0.0.in-addr.arpa.');
  assert.equal(reverseName('255.255.255.255').toString(), '255.255.255.255.in-addr.arpa.');
  assert.equal(reverseName('2001:db8::1').toString(), `1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa.`);
});

test('short prefixes: IPv4 keeps the octets the length reaches into, IPv6 stays as written', () => {
  assert.equal(shortPrefix('192.0.2.0/24'), '192.0.2/24');
  assert.equal(shortPrefix('10.0.0.0/8'), '10/8');
  assert.equal(shortPrefix('100.64.0.0/10'), '100.64/10', 'a length past an octet boundary keeps the next octet');
  assert.equal(shortPrefix('198.18.0.0/15'), '198.18/15');
  assert.equal(shortPrefix('172.16.0.0/12'), '172.16/12');
  assert.equal(shortPrefix('192.0.0.0/29'), '192.0.0.0/29');
  assert.equal(shortPrefix('255.255.255.255/32'), '255.255.255.255/32');
  assert.equal(shortPrefix('2001:db8::/32'), '2001:db8::/32');
});

test('prefix membership: both ends of a block in, one past either end out, the other family never', () => {
  const shared = prefixMatcher('100.64.0.0/10');
  assert.equal(shared('100.64.0.0'), true);
  assert.equal(shared('100.127.255.255'), true);
  assert.equal(shared('100.63.255.255'), false);
  assert.equal(shared('100.128.0.0'), false);
  assert.equal(shared('::ffff:100.64.0.1'), false, 'an IPv4-mapped IPv6 address is not in an IPv4 block');
  const ula = prefixMatcher('fc00::/7');
  assert.equal(ula('fc00::'), true);
  assert.equal(ula('fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), true);
  assert.equal(ula('fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), false);
  assert.equal(ula('fe00::'), false);
  assert.equal(ula('252.0.0.1'), false);
  const host = prefixMatcher('192.0.0.9/32');
  assert.equal(host('192.0.0.9'), true);
  assert.equal(host('192.0.0.8'), false);
  assert.equal(host('192.0.0.10'), false);
});

const blockOf = (address: string): string | undefined => specialPurposeBlock(address)?.prefix;

test('special-purpose IPv4: the edges of the private, shared, loopback and documentation blocks', () => {
  assert.equal(blockOf('9.255.255.255'), undefined);
  assert.equal(blockOf('10.0.0.0'), '10.0.0.0/8');
  assert.equal(blockOf('10.255.255.255'), '10.0.0.0/8');
  assert.equal(blockOf('11.0.0.0'), undefined);
  assert.equal(blockOf('100.63.255.255'), undefined);
  assert.equal(blockOf('100.64.0.0'), '100.64.0.0/10');
  assert.equal(blockOf('100.127.255.255'), '100.64.0.0/10');
  assert.equal(blockOf('100.128.0.0'), undefined);
  assert.equal(blockOf('127.0.0.1'), '127.0.0.0/8');
  assert.equal(blockOf('172.15.255.255'), undefined);
  assert.equal(blockOf('172.16.0.0'), '172.16.0.0/12');
  assert.equal(blockOf('172.31.255.255'), '172.16.0.0/12');
  assert.equal(blockOf('172.32.0.0'), undefined);
  assert.equal(blockOf('192.0.1.255'), undefined);
  assert.equal(blockOf('192.0.2.0'), '192.0.2.0/24');
  assert.equal(blockOf('192.0.2.255'), '192.0.2.0/24');
  assert.equal(blockOf('192.0.3.0'), undefined);
  assert.equal(blockOf('198.17.255.255'), undefined);
  assert.equal(blockOf('198.19.255.255'), '198.18.0.0/15');
  assert.equal(blockOf('198.20.0.0'), undefined);
  assert.equal(blockOf('239.255.255.255'), undefined, 'multicast is in no row of the registry');
  assert.equal(blockOf('240.0.0.0'), '240.0.0.0/4');
  assert.equal(blockOf('255.255.255.254'), '240.0.0.0/4');
  assert.equal(blockOf('8.8.8.8'), undefined);
});

test('special-purpose IPv4: where rows overlap the first in registry order names the address', () => {
  // 192.0.0.8/32 and 192.0.0.170/32 lie inside 192.0.0.0/24, which comes first.
  assert.deepEqual(specialPurposeBlock('192.0.0.8'), {
    prefix: '192.0.0.0/24',
    name: 'IETF Protocol Assignments',
    reference: '[RFC6890], Section 2.1',
  });
  assert.equal(blockOf('192.0.0.170'), '192.0.0.0/24');
  // The broadcast address is in 240.0.0.0/4 too, which comes before its own row.
  assert.equal(blockOf('255.255.255.255'), '240.0.0.0/4');
  assert.deepEqual(specialPurposeBlock('203.0.113.7'), {
    prefix: '203.0.113.0/24',
    name: 'Documentation (TEST-NET-3)',
    reference: '[RFC5737]',
  });
});

test('special-purpose IPv6: the edges of the documentation, ULA, link-local and IETF blocks', () => {
  assert.equal(blockOf('::'), '::/128');
  assert.equal(blockOf('::1'), '::1/128');
  assert.equal(blockOf('::2'), undefined);
  assert.equal(blockOf('::ffff:192.0.2.1'), '::ffff:0:0/96', 'an IPv4-mapped address is named by its IPv6 row');
  assert.equal(blockOf('2001:db7:ffff:ffff:ffff:ffff:ffff:ffff'), undefined);
  assert.equal(blockOf('2001:db8::'), '2001:db8::/32');
  assert.equal(blockOf('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'), '2001:db8::/32');
  assert.equal(blockOf('2001:db9::'), undefined);
  assert.equal(blockOf('2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'), '2001::/23');
  assert.equal(blockOf('2001:200::'), undefined);
  assert.equal(blockOf('2001:1::1'), '2001::/23', 'inside the /23, which comes before its own row');
  assert.equal(blockOf('fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), undefined);
  assert.equal(blockOf('fc00::'), 'fc00::/7');
  assert.equal(blockOf('fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), 'fc00::/7');
  assert.equal(blockOf('fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), undefined);
  assert.equal(blockOf('fe80::'), 'fe80::/10');
  assert.equal(blockOf('febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), 'fe80::/10');
  assert.equal(blockOf('fec0::'), undefined);
  assert.equal(blockOf('2a00:1450::1'), undefined);
  assert.deepEqual(specialPurposeBlock('2001:db8:1700::62'), { prefix: '2001:db8::/32', name: 'Documentation', reference: '[RFC3849]' });
});

test('special-purpose lookup of something that is not an address finds nothing', () => {
  assert.equal(specialPurposeBlock('ns1.example'), undefined);
  assert.equal(specialPurposeBlock(''), undefined);
  assert.equal(specialPurposeBlock('300.0.0.1'), undefined);
});
