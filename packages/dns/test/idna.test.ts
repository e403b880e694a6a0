import assert from 'node:assert/strict';
import { test } from 'node:test';
import { domainToAscii, IdnaError } from '@app/dns';

test('U-labels become A-labels, lower case, with UTS 46 mapping', () => {
  assert.equal(domainToAscii('Bücher.EXAMPLE'), 'xn--bcher-kva.example');
  assert.equal(domainToAscii('faß.de'), 'xn--fa-hia.de'); // non-transitional: ß stays
  assert.equal(domainToAscii('日本。jp'), 'xn--wgv71a.jp');
  assert.equal(domainToAscii('xn--Bcher-KVA.example.'), 'xn--bcher-kva.example.');
  assert.equal(domainToAscii('אב.com'), 'xn--4dbc.com');
  assert.equal(domainToAscii('l·l.example'), 'xn--ll-0ea.example'); // CONTEXTO middle dot between l's
});

test('ASCII labels pass through apart from case: DNS names may hold any character', () => {
  assert.equal(domainToAscii('_DMARC.Example.COM'), '_dmarc.example.com');
  assert.equal(domainToAscii('ab--cd.example'), 'ab--cd.example');
  assert.equal(domainToAscii('.'), '.');
});

function fault(text: string): string {
  try {
    domainToAscii(text);
  } catch (e) {
    assert.ok(e instanceof IdnaError, String(e));
    assert.match(e.message, /./);
    return e.fault;
  }
  return 'accepted';
}

test('invalid U-labels and A-labels are rejected, naming the fault', () => {
  assert.equal(fault('\u0300a.example'), 'leading-combining-mark');
  assert.equal(fault('-ü.example'), 'hyphen');
  assert.equal(fault('ü-.example'), 'hyphen');
  assert.equal(fault('a_ü.example'), 'disallowed-character');
  assert.equal(fault('xn--zz.example'), 'invalid-punycode');
  assert.equal(fault('xn--abc-.example'), 'invalid-punycode'); // decodes to plain ASCII
  assert.equal(fault('xn--a.example'), 'disallowed-character'); // decodes to U+0080
  assert.equal(fault('a\u200db.example'), 'joiner');
  assert.equal(fault('\u05d0a.example'), 'bidi');
  assert.equal(fault('١٢٣.example'), 'bidi');
  // UTS 46 lets symbols through; IDNA 2008 (RFC 5892) does not.
  assert.equal(fault('☃.net'), 'disallowed-character');
  assert.equal(fault('xn--n3h.net'), 'disallowed-character');
  assert.equal(fault('a·b.example'), 'context');
  assert.equal(fault('a・b.example'), 'context'); // katakana middle dot needs Japanese script
  assert.match(domainToAscii('カ・カ.example'), /^xn--[a-z0-9-]+\.example$/); // ...and is fine with it
});
