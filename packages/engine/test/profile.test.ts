import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultProfile, loadProfile, ProfileError } from '../src/profile/profile.ts';
import { isTestCaseEnabled, levelOf } from '../src/profile/profile.ts';

test('the shipped default profile carries the reference tag levels and settings', () => {
  const profile = defaultProfile();
  assert.equal(levelOf(profile, 'BASIC', 'B02_NO_WORKING_NS'), 'CRITICAL');
  assert.equal(levelOf(profile, 'BASIC', 'B02_AUTH_RESPONSE_SOA'), 'INFO');
  assert.equal(levelOf(profile, 'BASIC', 'B01_PARENT_UNDETERMINED'), 'WARNING');
  assert.equal(levelOf(profile, 'ADDRESS', 'A01_DOCUMENTATION_ADDR'), 'ERROR');
  assert.equal(levelOf(profile, 'BASIC', 'HAS_NAMESERVERS'), 'DEBUG', '4.6 tags that 9.0.1 dropped are gone from the table');
  assert.equal(levelOf(profile, 'SYSTEM', 'CANNOT_CONTINUE'), 'CRITICAL');
  assert.equal(levelOf(profile, 'BASIC', 'NOT_A_TAG_ANYWHERE'), 'DEBUG', 'unlisted tags are DEBUG');
  assert.deepEqual(profile.net, { ipv4: true, ipv6: true });
  assert.equal(profile.resolver.defaults.timeout, 5);
  assert.equal(profile.resolver.defaults.retry, 2);
  assert.equal(profile.test_cases_vars.zone02?.SOA_REFRESH_MINIMUM_VALUE, 14400);
  const tagCount = Object.values(profile.test_levels).reduce((n, tags) => n + Object.keys(tags).length, 0);
  assert.ok(tagCount > 400, `expected the full reference table, got ${tagCount} tags`);
});

test('a loaded profile overlays settings key by key and replaces test_levels and test_cases whole', () => {
  const profile = loadProfile({
    net: { ipv6: false },
    resolver: { defaults: { timeout: 2 } },
    test_cases: ['Zone01'],
    test_cases_vars: { zone02: { SOA_REFRESH_MINIMUM_VALUE: 7200 } },
    test_levels: { basic: { NS_FAILED: 'WARNING' } },
  });
  assert.deepEqual(profile.net, { ipv4: true, ipv6: false });
  assert.equal(profile.resolver.defaults.timeout, 2);
  assert.equal(profile.resolver.defaults.retry, 2);
  assert.equal(levelOf(profile, 'BASIC', 'NS_FAILED'), 'WARNING');
  assert.equal(levelOf(profile, 'BASIC', 'B02_NO_WORKING_NS'), 'DEBUG', 'test_levels replaces the whole table, as in the reference');
  assert.equal(profile.test_cases_vars.zone02?.SOA_REFRESH_MINIMUM_VALUE, 7200);
  assert.equal(profile.test_cases_vars.zone05?.SOA_EXPIRE_MINIMUM_VALUE, 604800);
  assert.equal(isTestCaseEnabled(profile, 'Zone01'), true);
  assert.equal(isTestCaseEnabled(profile, 'Basic03'), false);
  assert.equal(isTestCaseEnabled(profile, 'Basic02'), false, 'as in 9.0.1, Basic01 and 02 run only when test_cases lists them');
  assert.equal(isTestCaseEnabled(defaultProfile(), 'Basic01'), true);
  assert.equal(levelOf(defaultProfile(), 'BASIC', 'B02_NO_WORKING_NS'), 'CRITICAL', 'the default is not changed by loading');
});

test('a profile can be laid over another base', () => {
  const base = loadProfile({ net: { ipv4: false } });
  const profile = loadProfile({ net: { ipv6: false } }, base);
  assert.deepEqual(profile.net, { ipv4: false, ipv6: false });
});

test('bad profiles are refused with the property named', () => {
  const cases: [unknown, RegExp][] = [
    [[], /\(root\) must be an object/],
    [{ net: { ipv4: 'yes' } }, /net\.ipv4 must be true or false/],
    [{ resolver: { defaults: { timeout: -1 } } }, /resolver\.defaults\.timeout must be a number/],
    [{ test_levels: { BASIC: { NO_PARENT: 'SEVERE' } } }, /test_levels\.BASIC\.NO_PARENT is not a severity level/],
    [{ colour: 'blue' }, /Unknown profile property colour/],
    [{ asn_db: { style: 'whois' } }, /asn_db\.style/],
  ];
  for (const [json, message] of cases)
    assert.throws(
      () => loadProfile(json),
      (error: Error) => error instanceof ProfileError && message.test(error.message),
    );
});
