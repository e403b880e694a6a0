// The SOA RNAME read as a mail address (Syntax05/06), with the limits the reference applies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidMailAddress, rnameToAddress } from '../src/rules/mailbox.ts';

test('the first unescaped dot of the RNAME becomes the @; escaped dots stay in the local part', () => {
  assert.equal(rnameToAddress('hostmaster.example.test.'), 'hostmaster@example.test');
  assert.equal(rnameToAddress('first\\.last.example.test.'), 'first.last@example.test');
  assert.equal(rnameToAddress('host@master.example.test.'), 'host@master@example.test');
});

test('a well-formed address with a fully qualified host name is valid', () => {
  assert.ok(isValidMailAddress('hostmaster@example.test'));
  assert.ok(isValidMailAddress('first.last+dns@mail.example.test'));
  assert.ok(isValidMailAddress('"quoted local"@example.test'));
  assert.ok(isValidMailAddress('root@[192.0.2.1]'), 'an IPv4 literal needs no host name');
});

test('a second @, a host name that is not one, or a single label is invalid', () => {
  assert.ok(!isValidMailAddress('host@master@example.test'));
  assert.ok(!isValidMailAddress('hostmaster@example'), 'not fully qualified');
  assert.ok(!isValidMailAddress('hostmaster@ex_ample.test'));
  assert.ok(!isValidMailAddress('hostmaster@-example.test'));
  assert.ok(!isValidMailAddress('host master@example.test'));
  assert.ok(!isValidMailAddress('hostmaster@example..test'));
  assert.ok(!isValidMailAddress(''));
  assert.ok(!isValidMailAddress('hostmästare@example.test'), 'RFC 822 is ASCII');
});

test('the local part may have 64 characters, the address 254', () => {
  assert.ok(isValidMailAddress(`${'a'.repeat(64)}@example.test`));
  assert.ok(!isValidMailAddress(`${'a'.repeat(65)}@example.test`));
  const host = (length: number): string => `${'b'.repeat(length - 5)}.test`.replace(/b{60}/g, (run) => `${run.slice(0, 59)}.`);
  assert.ok(isValidMailAddress(`a@${host(252)}`), '254 in all');
  assert.equal(`a@${host(252)}`.length, 254);
  assert.ok(!isValidMailAddress(`a@${host(253)}`), '255 in all');
});
