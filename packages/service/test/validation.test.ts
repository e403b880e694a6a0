// Rules that depend on configuration or need many inputs, checked directly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { domainName } from '../src/validation/domain-name.ts';
import { languageTag, languageTags, messageLocale } from '../src/validation/language-tags.ts';
import { invalid, type Issue } from '../src/validation/param-rules.ts';

function check<T>(rule: (value: unknown, path: string, issues: Issue[]) => T | typeof invalid, value: unknown) {
  const issues: Issue[] = [];
  const result = rule(value, '/x', issues);
  return result === invalid ? issues.map((i) => i.id) : result;
}

test('LANGUAGE.locale: a short tag exists only when exactly one locale has it', () => {
  const tags = languageTags(['en_US', 'en_GB', 'sv_SE', 'sv_SE']);
  assert.deepEqual(tags.tags, ['en_GB', 'en_US', 'sv', 'sv_SE']);
  const rule = languageTag(tags);
  assert.equal(check(rule, 'sv'), 'sv');
  assert.equal(check(rule, 'en_GB'), 'en_GB');
  assert.deepEqual(check(rule, 'en'), ['language_unknown']);
  assert.deepEqual(check(rule, 'EN'), ['language_form']);
  assert.deepEqual(check(rule, 'en-GB'), ['language_form']);
  assert.deepEqual(check(rule, 'en_gb'), ['language_form']);
  assert.equal(messageLocale(tags, 'en_GB'), 'en');
  assert.equal(messageLocale(tags, 'sv'), 'sv');
  assert.equal(messageLocale(tags, 'de'), 'en');
  assert.equal(messageLocale(languageTags(['de_DE']), 'de'), 'en');
});

test('domain names: structure, lengths after IDNA, unicode dots, normal form', () => {
  const good: [string, string][] = [
    ['.', '.'],
    ['Example.SE.', 'example.se'],
    ['b\u00FCcher\u3002example\uFF0Ese', 'xn--bcher-kva.example.se'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['_sip._tcp.example', '_sip._tcp.example'],
    ['se', 'se'],
  ];
  for (const [given, normal] of good) assert.equal(check(domainName, given), normal, given);
  const bad: [string, string][] = [
    ['', 'domain_empty'],
    ['x', 'domain_single'],
    ['..', 'domain_leading_dot'],
    ['a..', 'domain_repeated_dots'],
    ['a\uFF61\uFF61b', 'domain_repeated_dots'],
    [`${'a'.repeat(64)}`, 'domain_label_long'],
    [`${'a.'.repeat(127)}ab`, 'domain_too_long'],
    ['xn--zz-\u00e4.se', 'domain_idna'],
    ['\u2603.example', 'domain_idna'],
  ];
  for (const [given, id] of bad) assert.deepEqual(check(domainName, given), [id], given);
});
