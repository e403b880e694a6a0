import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Name, NameError } from '@app/dns';

test('names keep any byte and show zone-file escapes', () => {
  const name = Name.fromString('a\\.b\\032c\\255.Example.');
  assert.equal(name.labels.length, 2);
  assert.deepEqual([...name.labels[0]], [0x61, 0x2e, 0x62, 0x20, 0x63, 0xff]);
  assert.equal(name.toString(), 'a\\.b\\032c\\255.Example.');
  assert.equal(Name.fromString(name.toString()).equals(name), true);
  assert.equal(Name.fromString('quote\\"semi\\;at\\@.').toString(), 'quote\\"semi\\;at\\@.');
  assert.equal(Name.root.toString(), '.');
  assert.equal(Name.fromString('.').isRoot, true);
});

test('relative names take the origin; absolute ones do not', () => {
  const origin = Name.fromString('example.org.');
  assert.equal(Name.fromString('www', origin).toString(), 'www.example.org.');
  assert.equal(Name.fromString('www.other.', origin).toString(), 'www.other.');
  assert.equal(Name.fromString('@', origin).toString(), 'example.org.');
});

test('comparison ignores ASCII case only', () => {
  assert.equal(Name.fromString('WWW.Example.COM.').equals(Name.fromString('www.example.com.')), true);
  assert.equal(Name.fromString('\\200.x.').equals(Name.fromString('\\224.x.')), false);
  assert.equal(Name.fromString('a.b.').equals(Name.fromString('a.b.c.')), false);
});

test('canonical order follows RFC 4034 §6.1', () => {
  // The example list from RFC 4034 §6.1, already in canonical order.
  const ordered = [
    'example.',
    'a.example.',
    'yljkjljk.a.example.',
    'Z.a.example.',
    'zABC.a.EXAMPLE.',
    'z.example.',
    '\\001.z.example.',
    '*.z.example.',
    '\\200.z.example.',
  ];
  const names = ordered.map((t) => Name.fromString(t));
  const shuffled = [...names].reverse();
  shuffled.sort((a, b) => a.compareCanonical(b));
  assert.deepEqual(
    shuffled.map(String),
    ordered.map((t) => Name.fromString(t).toString()),
  );
});

test('parent and subdomain relations', () => {
  const name = Name.fromString('www.Example.com.');
  assert.equal(name.parent()!.toString(), 'Example.com.');
  assert.equal(Name.root.parent(), undefined);
  assert.equal(name.isSubdomainOf(Name.fromString('example.COM.')), true);
  assert.equal(name.isSubdomainOf(name), true);
  assert.equal(name.isSubdomainOf(Name.root), true);
  assert.equal(Name.fromString('wwwexample.com.').isSubdomainOf(Name.fromString('example.com.')), false);
  assert.equal(Name.fromString('x.aexample.com.').isSubdomainOf(Name.fromString('example.com.')), false);
});

test('label and name length limits are enforced', () => {
  assert.doesNotThrow(() => Name.fromString(`${'a'.repeat(63)}.`));
  assert.throws(() => Name.fromString(`${'a'.repeat(64)}.`), NameError);
  // 4 labels of 63 bytes: 4 * 64 + 1 = 257 bytes on the wire.
  const long = Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.') + '.';
  assert.throws(() => Name.fromString(long), /longer than 255/);
  const max = [63, 63, 63, 61].map((n) => 'a'.repeat(n)).join('.') + '.';
  assert.equal(Name.fromString(max).wire.length, 255);
  assert.throws(() => Name.fromString('a..b.'), /empty label/);
  assert.throws(() => Name.fromString('a\\256.'), /DDD/);
  assert.throws(() => Name.fromString('bücher.example.'), /non-ASCII/);
});
