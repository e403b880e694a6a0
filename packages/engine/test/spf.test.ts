// Zone11's SPF rules (RFC 7208 section 12), at the boundaries where a policy turns from valid to not;
// each case agrees with the reference engine's SPF library.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNullSpfPolicy, isSpfPolicy, spfSyntaxOk, txtText } from '../src/rules/spf.ts';

test('policies that parse', () => {
  for (const policy of [
    'v=spf1',
    'v=spf1 ',
    'v=spf1 -all',
    'v=spf1 a mx ~all',
    'v=spf1 a:mail.example.com/24 -all',
    'v=spf1 a/24//64 ?all',
    'v=spf1 mx//64 -all',
    'v=spf1 ip4:192.0.2.0/24 ip4:192.0.2.1/0 -all',
    'v=spf1 ip6:2001:db8::/32 ip6:2001:db8::1 ip6:::ffff:192.0.2.1 -all',
    'v=spf1 include:_spf.example.com include:example.com. -all',
    'v=spf1 exists:%{ir}.%{l1r+-}._spf.%{d} -all',
    'v=spf1 include:%{d} ptr ptr:example.com -all',
    'v=spf1 redirect=_spf.example.com',
    'v=spf1 exp=explain.example.com -all',
    'v=spf1 foo=bar -all',
    'V=SPF1 A -ALL',
  ]) {
    assert.equal(spfSyntaxOk(policy), true, policy);
  }
});

test('policies with a syntax error', () => {
  for (const policy of [
    'v=spf10 -all',
    'v=spf1\t-all',
    'v=spf1 a:example.com/33 -all',
    'v=spf1 a:example.com/08 -all',
    'v=spf1 a:example.com//129 -all',
    'v=spf1 mx:',
    'v=spf1 ip4:192.0.2.256 -all',
    'v=spf1 ip4:192.0.2 -all',
    'v=spf1 ip6:2001:db8:::1 -all',
    'v=spf1 include: -all',
    'v=spf1 include -all',
    'v=spf1 include:example.123 -all',
    'v=spf1 include:ex.-ab -all',
    'v=spf1 redirect=a.example redirect=b.example',
    'v=spf1 redirect:example.com',
    'v=spf1 foo=%x -all',
    'v=spf1 foo -all',
    'v=spf1 -all extra',
    'v=spf1 a:example.com:80 -all',
    'v=spf1 all.foo',
    'v=spf1 =foo',
  ]) {
    assert.equal(spfSyntaxOk(policy), false, policy);
  }
});

test('which TXT data are SPF version 1 policies, and which are null', () => {
  assert.equal(txtText([Buffer.from('V=SPF1 '), Buffer.from('-All')]), 'v=spf1 -all', 'strings joined without a space, lower case');
  assert.equal(isSpfPolicy('v=spf1'), true);
  assert.equal(isSpfPolicy('v=spf1\t-all'), true, 'any white space after the version selects it (and then fails to parse)');
  assert.equal(isSpfPolicy('v=spf10 -all'), false);
  assert.equal(isSpfPolicy('google-site-verification=abc'), false);
  assert.equal(isNullSpfPolicy('v=spf1 -all'), true);
  assert.equal(isNullSpfPolicy('v=spf1  -all '), true);
  assert.equal(isNullSpfPolicy('v=spf1 ~all'), false);
  assert.equal(isNullSpfPolicy('v=spf1 a -all'), false);
});
