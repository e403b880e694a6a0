import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Finding } from '../src/finding.ts';
import { testCaseIds } from '../src/framework/registry.ts';
import { defaultProfile } from '../src/profile/profile.ts';
import { formatFinding, locales, testCaseDescription } from '../src/catalogue/catalogue.ts';
import { englishMessageKeys, untranslated } from '../src/catalogue/catalogue.ts';

const finding: Finding = { module: 'BASIC', testcase: 'Basic02', tag: 'NS_FAILED', level: 'ERROR', args: { ns: 'ns1.example.com/192.0.2.1', rcode: 'REFUSED' }, timestamp: 0.5 };

test('the seven locales are offered', () => {
  assert.deepEqual([...locales].sort(), ['da', 'en', 'es', 'fi', 'fr', 'nb', 'sv']);
});

test('a finding is rendered from the catalogue with its arguments filled in', () => {
  assert.equal(formatFinding(finding, 'en'), 'ns1.example.com/192.0.2.1 gave no NS records for the zone (RCODE REFUSED).');
  const swedish = formatFinding(finding, 'sv');
  assert.match(swedish, /ns1\.example\.com\/192\.0\.2\.1/);
  assert.notEqual(swedish, formatFinding(finding, 'en'));
  assert.equal(formatFinding(finding, 'fr_FR'), formatFinding(finding, 'fr'), 'long locale tags select the language');
});

test('a tag with no text at all still shows its tag and arguments', () => {
  const unknown: Finding = { ...finding, module: 'ZONE', tag: 'SOMETHING_NEW', args: { ns: 'a/192.0.2.1' } };
  assert.equal(formatFinding(unknown, 'en'), 'SOMETHING_NEW (ns=a/192.0.2.1)');
});

test('a tag every module uses has one text for all of them', () => {
  const text = formatFinding({ ...finding, module: 'ZONE', tag: 'IPV4_ENABLED', args: { ns: 'a/192.0.2.1', rrtype: 'SOA' } }, 'en');
  assert.equal(text, 'IPv4 is on: the SOA query goes to a/192.0.2.1.');
});

test('an unknown locale gets the English text', () => {
  const text = formatFinding({ ...finding, tag: 'HAS_PARENT', args: { zone: 'a.example', pname: 'example' } }, 'xx');
  assert.equal(text, 'The parent zone example was found.');
});

test('every implemented test case has a description in every locale (English where untranslated)', () => {
  for (const id of testCaseIds()) {
    for (const locale of locales) assert.notEqual(testCaseDescription(id, locale), id, `${id} in ${locale}`);
  }
  assert.equal(testCaseDescription('basic01', 'fi'), testCaseDescription('Basic01', 'fi'));
});

test('every tag the default profile gives a level of NOTICE or above in BASIC has English text', () => {
  const keys = new Set(englishMessageKeys());
  const missing = Object.entries(defaultProfile().test_levels.BASIC ?? {})
    .filter(([tag, level]) => !['DEBUG', 'DEBUG2', 'DEBUG3'].includes(level) && !keys.has(`BASIC:${tag}`))
    .map(([tag]) => tag);
  assert.deepEqual(missing, []);
});

test('translation coverage per locale', (t) => {
  // Not a gate: the list tells translators what is left. Basic messages and descriptions must be done.
  for (const locale of locales.filter((l) => l !== 'en')) {
    const left = untranslated(locale);
    t.diagnostic(`${locale}: ${left.messages.length} messages and ${left.testcases.length} test case descriptions fall back to English`);
    assert.deepEqual(left.testcases, [], `${locale} test case descriptions`);
    assert.deepEqual(left.messages.filter((key) => /^(BASIC|SYSTEM|ALL):/.test(key)), [], `${locale} Basic and system messages`);
  }
});
