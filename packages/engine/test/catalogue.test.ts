import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Finding } from '../src/finding.ts';
import { testCaseIds } from '../src/run/registry.ts';
import { defaultProfile } from '../src/profile/profile.ts';
import { formatFinding, localeTexts, locales, testCaseDescription } from '../src/catalogue/catalogue.ts';

const finding: Finding = {
  module: 'BASIC',
  testcase: 'Basic02',
  tag: 'NS_FAILED',
  level: 'ERROR',
  args: { ns: 'ns1.example.com/192.0.2.1', rcode: 'REFUSED' },
  timestamp: 0.5,
};
const english = localeTexts('en')!;
const translations = locales.filter((locale) => locale !== 'en');

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();
}

test('the eight locales are offered', () => {
  assert.deepEqual([...locales].sort(), ['da', 'en', 'es', 'fi', 'fr', 'nb', 'sl', 'sv']);
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
  const inherited: Finding = { ...finding, tag: 'constructor', args: {} };
  assert.equal(formatFinding(inherited, 'en'), 'constructor', 'names on Object.prototype are not texts');
});

test('a tag every module uses has one text for all of them', () => {
  const text = formatFinding({ ...finding, module: 'ZONE', tag: 'IPV4_ENABLED', args: { ns: 'a/192.0.2.1', rrtype: 'SOA' } }, 'en');
  assert.equal(text, 'IPv4 is on: the SOA query goes to a/192.0.2.1.');
});

test('a fully qualified name at the end of a sentence is not followed by a second dot', () => {
  const rname: Finding = {
    ...finding,
    module: 'CONSISTENCY',
    testcase: 'Consistency02',
    tag: 'ONE_SOA_RNAME',
    level: 'INFO',
    args: { rname: 'hostmaster.example.' },
  };
  assert.equal(formatFinding(rname, 'en'), 'All name servers have the same SOA RNAME: hostmaster.example.');
  const root: Finding = { ...rname, args: { rname: '.' } };
  assert.equal(formatFinding(root, 'en'), 'All name servers have the same SOA RNAME: ..', 'the root keeps its dot');
});

test("a time the finding carries in the reference's form is shown as a date in the reader's language", () => {
  const expiring: Finding = {
    ...finding,
    module: 'DNSSEC',
    testcase: 'DNSSEC04',
    tag: 'RRSIG_EXPIRATION',
    level: 'INFO',
    args: { keytag: 4711, types: 'SOA', date: 'Tue Jan  1 13:05:00 2030' },
  };
  assert.equal(formatFinding(expiring, 'en'), 'The signature by the key 4711 over SOA expires on January 1, 2030 at 01:05 PM UTC.');
  assert.match(formatFinding(expiring, 'fr_FR'), /expire le 1 janvier 2030 à 13:05 UTC\.$/);
  assert.match(formatFinding(expiring, 'fi'), /1\. tammikuuta 2030 klo 13\.05 UTC/);
  assert.equal(expiring.args.date, 'Tue Jan  1 13:05:00 2030', 'the argument itself stays as the reference gives it');
  const odd: Finding = { ...expiring, args: { ...expiring.args, date: 'soon' } };
  assert.match(formatFinding(odd, 'en'), /expires on soon\.$/, 'a value that is not such a time is shown as it is');
});

test('an aside naming only an argument the finding lacks is left out, not shown empty or as a placeholder', () => {
  const unsigned: Finding = {
    ...finding,
    module: 'DNSSEC',
    testcase: 'DNSSEC13',
    tag: 'DS13_ALGO_NOT_SIGNED_NS',
    level: 'WARNING',
    args: { algo_num: 100, ns_ip_list: '192.0.2.1' },
  };
  assert.equal(
    formatFinding(unsigned, 'en'),
    'The DNSKEY set has a key with algorithm 100, but no signature with that algorithm covers the NS records (name servers 192.0.2.1).',
  );
  const named: Finding = { ...unsigned, args: { ...unsigned.args, algo_mnemo: 'ECDSAP384SHA384', algo_num: 14 } };
  assert.match(formatFinding(named, 'en'), /algorithm 14 \(ECDSAP384SHA384\), but/);
});

test('an unknown locale gets the English text', () => {
  const text = formatFinding({ ...finding, tag: 'HAS_PARENT', args: { zone: 'a.example', pname: 'example' } }, 'xx');
  assert.equal(text, 'The parent zone example was found.');
});

test('every tag the default profile shows (above DEBUG) has English text', () => {
  const missing = Object.entries(defaultProfile().test_levels).flatMap(([module, tags]) =>
    Object.entries(tags)
      .filter(([tag, level]) => !level.startsWith('DEBUG') && english.messages[`${module}:${tag}`] === undefined)
      .map(([tag]) => `${module}:${tag}`),
  );
  assert.deepEqual(missing, []);
});

test('every test case has a description in every locale', () => {
  for (const locale of locales) {
    const texts = localeTexts(locale)!;
    assert.deepEqual(
      Object.keys(english.testcases).filter((id) => texts.testcases[id] === undefined),
      [],
      locale,
    );
    for (const id of testCaseIds()) assert.notEqual(testCaseDescription(id, locale), id, `${id} in ${locale}`);
  }
  assert.equal(testCaseDescription('basic01', 'fi'), testCaseDescription('Basic01', 'fi'));
});

for (const locale of translations) {
  test(`${locale}: every message has a text`, () => {
    const texts = localeTexts(locale)!;
    const missing = Object.keys(english.messages).filter((key) => texts.messages[key] === undefined);
    assert.deepEqual(missing, [], `${locale} lacks these texts`);
  });

  test(`${locale}: every text is its own, with the placeholders of the English one`, () => {
    const texts = localeTexts(locale)!;
    const unknown = Object.keys(texts.messages).filter((key) => english.messages[key] === undefined);
    assert.deepEqual(unknown, [], `${locale} has texts English does not`);
    for (const [key, text] of Object.entries(texts.messages)) {
      const source = english.messages[key];
      assert.deepEqual(placeholders(text), placeholders(source), `${locale} ${key}: placeholders differ from English`);
      assert.notEqual(text, source, `${locale} ${key} is the English text`);
    }
    for (const [id, text] of Object.entries(texts.testcases))
      assert.notEqual(text, english.testcases[id], `${locale} ${id} is the English description`);
    assert.deepEqual(Object.keys(texts.ui).sort(), Object.keys(english.ui).sort(), `${locale} interface texts`);
    for (const [key, text] of Object.entries(texts.ui))
      assert.deepEqual(placeholders(text), placeholders(english.ui[key]), `${locale} ui ${key}`);
  });
}

test('a finding stored by an earlier engine still reads whole: renamed arguments fill the new placeholders', () => {
  const older = {
    module: 'ZONE',
    testcase: 'Zone09',
    tag: 'Z09_MX_DATA',
    level: 'INFO' as const,
    args: { mailtarget_list: 'mail.example.', ns_ip_list: '192.0.2.1;192.0.2.2' },
    timestamp: 0,
  };
  for (const locale of locales) {
    const text = formatFinding(older, locale);
    assert.ok(text.includes('mail.example') && text.includes('192.0.2.1;192.0.2.2'), `${locale}: ${text}`);
    assert.doesNotMatch(text, /\{\w+\}/, locale);
  }
  const withoutServers = { module: 'DNSSEC', testcase: 'DNSSEC10', tag: 'DS10_HAS_NSEC', level: 'INFO' as const, args: {}, timestamp: 0 };
  assert.doesNotMatch(formatFinding(withoutServers, 'en'), /\{\w+\}/, 'an argument an older engine never gave leaves a gap, not a brace');
});
