// The Syntax module's name rules at the edges the specifications draw (Syntax-TP syntax01–04, 07, 08).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Name } from '@app/dns';
import {
  endsWithHyphen,
  hasDiscouragedDoubleDash,
  hasOnlyAllowedChars,
  hostNameMessages,
  labelsOf,
  nameText,
  startsWithHyphen,
} from '../src/rules/name-syntax.ts';

test('labels are the text between dots; a final dot adds none, the root has none', () => {
  assert.deepEqual(labelsOf('www.example.test'), ['www', 'example', 'test']);
  assert.deepEqual(labelsOf('www.example.test.'), ['www', 'example', 'test']);
  assert.deepEqual(labelsOf('.'), []);
});

test('only letters, digits and hyphens are allowed, in any case', () => {
  assert.ok(hasOnlyAllowedChars(['Ab-9', 'x']));
  assert.ok(hasOnlyAllowedChars([]), 'the root has no label to fault');
  for (const bad of ['under_score', 'sp ace', 'star*', 'a@b', 'ö']) assert.ok(!hasOnlyAllowedChars(['ok', bad]), bad);
});

test('a hyphen is faulted only at the very start or end of a label', () => {
  assert.ok(startsWithHyphen('-a') && !endsWithHyphen('-a'));
  assert.ok(endsWithHyphen('a-') && !startsWithHyphen('a-'));
  assert.ok(startsWithHyphen('-') && endsWithHyphen('-'));
  assert.ok(!startsWithHyphen('a-b') && !endsWithHyphen('a-b'));
});

test("'--' is discouraged exactly in positions 3 and 4, unless the label starts with xn (an A-label)", () => {
  assert.ok(hasDiscouragedDoubleDash('ab--cd'));
  assert.ok(hasDiscouragedDoubleDash('ab--'), 'four characters are enough');
  assert.ok(!hasDiscouragedDoubleDash('a--bc'), 'positions 2 and 3');
  assert.ok(!hasDiscouragedDoubleDash('abc--d'), 'positions 4 and 5');
  assert.ok(!hasDiscouragedDoubleDash('ab-'));
  assert.ok(!hasDiscouragedDoubleDash('xn--bcher-kva'));
  assert.ok(!hasDiscouragedDoubleDash('XN--bcher-kva'), 'the prefix in any case');
});

test('a host name gets every fault it has, or one SYNTAX_OK', () => {
  assert.deepEqual(hostNameMessages('MX', 'mail.example.test'), [{ tag: 'MX_SYNTAX_OK', args: { domain: 'mail.example.test' } }]);
  assert.deepEqual(hostNameMessages('NAMESERVER', 'ns_1.ab--x.123'), [
    { tag: 'NAMESERVER_NON_ALLOWED_CHARS', args: { domain: 'ns_1.ab--x.123' } },
    { tag: 'NAMESERVER_DISCOURAGED_DOUBLE_DASH', args: { label: 'ab--x', domain: 'ns_1.ab--x.123' } },
    { tag: 'NAMESERVER_NUMERIC_TLD', args: { domain: 'ns_1.ab--x.123', tld: '123' } },
  ]);
  assert.deepEqual(
    hostNameMessages('MNAME', 'ns.example.12a'),
    [{ tag: 'MNAME_SYNTAX_OK', args: { domain: 'ns.example.12a' } }],
    'a TLD with a letter is not numeric',
  );
  assert.deepEqual(hostNameMessages('MX', '.'), [{ tag: 'MX_SYNTAX_OK', args: { domain: '.' } }], 'a Null MX target is fine');
});

test('names from records are shown as the reference shows them', () => {
  assert.equal(nameText(Name.fromString('Mail.Example.test.')), 'Mail.Example.test');
  assert.equal(nameText(Name.fromString('first\\.last.example.test.')), 'first\\.last.example.test');
  assert.equal(nameText(Name.fromString('host\\@master.example.test.')), 'host@master.example.test');
  assert.equal(nameText(Name.fromString('a\\032b.test.')), 'a\\032b.test');
  assert.equal(nameText(Name.root), '.');
});
