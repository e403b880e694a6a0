// The interface's logic that needs no browser: its texts in every language, addresses, the
// report's grouping and overall result, the comparison of two reports, and the export formats.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { RpcError, type TestResult, type TestResults } from '../src/web/client/api.ts';
import { LANGUAGES } from '../src/shared/languages.ts';
import { EXTRA_FORMS, pluralKey } from '../src/web/client/plural.ts';
import {
  collapseRepeats,
  compareReports,
  countByLevel,
  delegationFailed,
  groupByModule,
  overallResult,
} from '../src/shared/report-model.ts';
import { specificationUrl } from '../src/web/client/specifications.ts';
import { reportFile } from '../src/web/client/report-export.ts';
import { parseRoute, paths } from '../src/shared/page-routes.ts';

const localesDir = new URL('../src/shared/locales/', import.meta.url);
const load = (name: string) => JSON.parse(readFileSync(new URL(name, localesDir), 'utf8')) as Record<string, string>;

test('every language has every interface text, with the same placeholders as English', () => {
  const files = readdirSync(localesDir).sort();
  assert.deepEqual(files, LANGUAGES.map((language) => `${language}.json`).sort(), 'one file per language of languages.ts');
  const english = load('en.json');
  const placeholders = (text: string) => [...text.matchAll(/\{\w+\}/g)].map((m) => m[0]).sort();
  for (const file of files) {
    const strings = load(file);
    const language = file.slice(0, -'.json'.length);
    // A counted text may have more forms than English's one and other, where the language has them.
    const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
    const extraForm = (key: string) =>
      EXTRA_FORMS.find((form) => key.endsWith(`_${form}`) && Object.hasOwn(english, `${key.slice(0, -form.length)}other`));
    for (const key of Object.keys(strings).filter(extraForm))
      assert.ok(categories.includes(extraForm(key)!), `${file} ${key}: ${language} has no such plural form`);
    assert.deepEqual(
      Object.keys(strings)
        .filter((key) => !extraForm(key))
        .sort(),
      Object.keys(english).sort(),
      file,
    );
    for (const [key, text] of Object.entries(strings)) {
      // A form of a counted text has the placeholders of one of English's forms: Slovenian's "one"
      // also counts 101, so it shows {count} where English's "reported once" does not.
      const base = /^(.*)_(?:zero|one|two|few|many|other)$/.exec(key)?.[1];
      const sources =
        base !== undefined && Object.hasOwn(english, `${base}_other`)
          ? [english[`${base}_one`] ?? '', english[`${base}_other`] ?? '']
          : [english[key] ?? ''];
      assert.ok(
        sources.some((source) => placeholders(source).join() === placeholders(text).join()),
        `${file} ${key}: placeholders differ from English`,
      );
      assert.ok(text.trim() !== '', `${file} ${key} is empty`);
    }
    if (file !== 'en.json') assert.notEqual(strings.form_title, english.form_title, `${file} is translated`);
  }
});

test("texts that count things take the form the language's plural rules pick", () => {
  const counted = (language: string, base: string, count: number) => {
    const texts = load(`${language}.json`);
    return texts[pluralKey(language, base, count, texts)]?.replace('{count}', String(count));
  };
  assert.equal(counted('en', 'ds_count', 1), '1 DS record');
  assert.equal(counted('en', 'ds_count', 0), '0 DS records');
  assert.equal(counted('fi', 'ns_count', 2), '2 nimipalvelinta');
  assert.equal(counted('fr', 'ns_count', 0), '0 serveur de noms');
  assert.equal(counted('fr', 'ns_count', 1_000_000), '1000000 serveurs de noms', 'French "many" takes the other form');
  // Slovenian has a dual and a form for three and four, also in 102, 103...
  assert.deepEqual(
    [1, 2, 3, 4, 5, 101, 102, 103, 111].map((n) => counted('sl', 'ns_count', n)),
    [
      '1 imenski strežnik',
      '2 imenska strežnika',
      '3 imenski strežniki',
      '4 imenski strežniki',
      '5 imenskih strežnikov',
      '101 imenski strežnik',
      '102 imenska strežnika',
      '103 imenski strežniki',
      '111 imenskih strežnikov',
    ],
  );
  assert.deepEqual(
    [1, 2, 3, 5].map((n) => counted('sl', 'ds_count', n)),
    ['1 zapis DS', '2 zapisa DS', '3 zapisi DS', '5 zapisov DS'],
  );
  // Every counted text has both forms in English, which every language is checked against above.
  const english = Object.keys(load('en.json'));
  const bases = (suffix: string) =>
    english
      .filter((key) => key.endsWith(suffix))
      .map((key) => key.slice(0, -suffix.length))
      .sort();
  assert.deepEqual(bases('_one'), bases('_other'));
});

test('addresses: each page has one, and anything else is not found', () => {
  assert.deepEqual(parseRoute('/'), { page: 'home' });
  assert.deepEqual(parseRoute(paths.result('0123456789abcdef')), { page: 'result', id: '0123456789abcdef' });
  assert.deepEqual(parseRoute(paths.history('xn--bcher-kva.example')), { page: 'history', domain: 'xn--bcher-kva.example' });
  assert.deepEqual(parseRoute(paths.history('a/b')), { page: 'history', domain: 'a/b' });
  assert.deepEqual(parseRoute(paths.compare('0123456789abcdef', 'fedcba9876543210')), {
    page: 'compare',
    from: '0123456789abcdef',
    to: 'fedcba9876543210',
  });
  assert.deepEqual(parseRoute(paths.batch(42)), { page: 'batch', id: '42' });
  for (const path of [
    '/result/0123',
    '/result/0123456789ABCDEF',
    '/batch/0',
    '/batch/x',
    '/history/%E0%A4%A',
    '/toString',
    '/__proto__',
    '/result/0123456789abcdef/',
  ]) {
    assert.deepEqual(parseRoute(path), { page: 'not-found' }, path);
  }
});

const r = (module: string, testcase: string, level: TestResult['level'], message: string): TestResult => ({
  module,
  testcase,
  level,
  message,
});
const report: TestResults = {
  hash_id: '0123456789abcdef',
  created_at: '2026-01-02T03:04:05Z',
  params: { domain: 'example.test' },
  results: [
    r('SYSTEM', 'Unspecified', 'INFO', 'Engine 1.0'),
    r('BASIC', 'Basic01', 'INFO', 'Parent found'),
    r('BASIC', 'Basic02', 'ERROR', 'ns1 says "no", badly'),
    r('BASIC', 'Basic01', 'NOTICE', 'Second, line\nbreak'),
    r('DNSSEC', 'DNSSEC01', 'WARNING', 'Weak digest'),
  ],
  testcase_descriptions: { Basic01: 'Parent delegates', Basic02: 'A name server works', toString: 'not a test case' },
};

test("findings grouped by module and test case in the engine's order, each module with its worst level, SYSTEM last", () => {
  const groups = groupByModule(report);
  // SYSTEM sums up ("testing stopped here, see the findings above"), so it comes after the modules it refers to.
  assert.deepEqual(
    groups.map((g) => [g.module, g.worst, g.results.length]),
    [
      ['BASIC', 'ERROR', 3],
      ['DNSSEC', 'WARNING', 1],
      ['SYSTEM', 'INFO', 1],
    ],
  );
  assert.deepEqual(
    groups[0]?.testcases.map((t) => [t.testcase, t.description, t.results.length]),
    [
      ['Basic01', 'Parent delegates', 2],
      ['Basic02', 'A name server works', 1],
    ],
  );
  assert.equal(groups[2]?.testcases[0]?.description, 'Unspecified', 'a test case without a description is shown by its id');
  assert.equal(delegationFailed(report.results), false);
  assert.equal(delegationFailed([r('BASIC', 'Basic01', 'CRITICAL', 'No parent')]), true, 'a failed Basic01 means no delegation');
  assert.deepEqual(countByLevel(report.results), { INFO: 2, NOTICE: 1, WARNING: 1, ERROR: 1, CRITICAL: 0 });
  assert.equal(overallResult(report.results), 'error');
  assert.equal(overallResult([r('A', 'a', 'NOTICE', 'x')]), 'ok');
  assert.equal(overallResult([r('A', 'a', 'WARNING', 'x'), r('A', 'a', 'CRITICAL', 'y')]), 'critical');
});

test('a finding said again is listed once, with how often it came, where it first came', () => {
  const results = [
    r('DNSSEC', 'DNSSEC05', 'INFO', 'key 1 ok'),
    r('DNSSEC', 'DNSSEC05', 'INFO', 'key 2 ok'),
    r('DNSSEC', 'DNSSEC05', 'INFO', 'key 1 ok'),
    r('DNSSEC', 'DNSSEC05', 'WARNING', 'key 1 ok'),
  ];
  assert.deepEqual(collapseRepeats(results), [
    { result: results[0], times: 2 },
    { result: results[1], times: 1 },
    { result: results[3], times: 1 },
  ]);
});

test('a comparison lists findings that appeared and went away, counting repeated findings', () => {
  const before = [r('BASIC', 'Basic01', 'INFO', 'a'), r('BASIC', 'Basic02', 'ERROR', 'b'), r('BASIC', 'Basic02', 'ERROR', 'b')];
  const after = [
    r('BASIC', 'Basic01', 'INFO', 'a'),
    r('BASIC', 'Basic02', 'ERROR', 'b'),
    r('BASIC', 'Basic02', 'WARNING', 'b'),
    r('DNSSEC', 'DNSSEC01', 'INFO', 'c'),
  ];
  const diff = compareReports(before, after);
  assert.deepEqual(diff.appeared, [r('BASIC', 'Basic02', 'WARNING', 'b'), r('DNSSEC', 'DNSSEC01', 'INFO', 'c')]);
  assert.deepEqual(diff.disappeared, [r('BASIC', 'Basic02', 'ERROR', 'b')]);
  assert.equal(diff.unchanged, 2);
  assert.deepEqual(compareReports(after, after), { appeared: [], disappeared: [], unchanged: 4 });
  // Two runs of an unchanged zone quote the query name as randomly cased: that is no change.
  const cased = (name: string) => [r('NAMESERVER', 'Nameserver08', 'INFO', `ns1 keeps the case of ${name}`)];
  assert.deepEqual(compareReports(cased('wWw.ExAmple.TEST'), cased('WwW.examPLE.test')), { appeared: [], disappeared: [], unchanged: 1 });
});

test('a test case links to its specification; what has none links nowhere', () => {
  assert.equal(
    specificationUrl('BASIC', 'Basic01'),
    'https://github.com/zonemaster/zonemaster/blob/master/docs/public/specifications/tests/Basic-TP/basic01.md',
  );
  assert.equal(
    specificationUrl('DNSSEC', 'DNSSEC02'),
    'https://github.com/zonemaster/zonemaster/blob/master/docs/public/specifications/tests/DNSSEC-TP/dnssec02.md',
  );
  assert.equal(specificationUrl('SYSTEM', 'UNSPECIFIED'), undefined);
  assert.equal(specificationUrl('BACKEND', 'TEST_DIED'), undefined);
});

test('exports: JSON as given, CSV quoted where needed, plain text by module', () => {
  const json = reportFile(report, 'json');
  assert.equal(json.name, 'example.test-0123456789abcdef.json');
  assert.deepEqual(JSON.parse(json.text), report);
  const csv = reportFile(report, 'csv').text.split('\r\n');
  // Changed with the tag and arguments columns (issue 31): without evidence they stay empty.
  assert.equal(csv[0], '\uFEFFmodule,testcase,level,tag,message,ns,args', 'a byte order mark, so that Excel reads UTF-8');
  assert.equal(csv[3], 'BASIC,Basic02,ERROR,,"ns1 says ""no"", badly",,');
  assert.equal(csv[4], 'BASIC,Basic01,NOTICE,,"Second, line\nbreak",,');
  assert.equal(csv.length, report.results.length + 2);
  const hostile = {
    ...report,
    results: [
      r('ZONE', 'Zone09', 'ERROR', '=HYPERLINK("http://x.test")'),
      r('ZONE', 'Zone09', 'INFO', '@SUM(1)'),
      r('ZONE', 'Zone09', 'INFO', '-2+3'),
    ],
  };
  assert.deepEqual(
    reportFile(hostile, 'csv').text.split('\r\n').slice(1, 4),
    [`ZONE,Zone09,ERROR,,"'=HYPERLINK(""http://x.test"")",,`, "ZONE,Zone09,INFO,,'@SUM(1),,", "ZONE,Zone09,INFO,,'-2+3,,"],
    'a cell a spreadsheet would run as a formula stays text',
  );
  const text = reportFile(report, 'txt').text;
  assert.match(text, /^example\.test 2026-01-02T03:04:05Z 0123456789abcdef\n\nSYSTEM\n {2}INFO {5}Unspecified {2}Engine 1\.0\n\nBASIC\n/);
  assert.match(text, /\n {2}WARNING {2}DNSSEC01 {2}Weak digest\n$/);
});

test("exports with the evidence carry each finding's tag and arguments beside its text", () => {
  const evidence = {
    results: report.results.map((_, i) => ({ tag: `TAG_${i}`, args: { ns: `ns${i}.example.test`, n: i } })),
    query_log: { queries: 12, servers: 2, unanswered: 1 },
    query_counts: {},
    ds_suggestion: [],
    reused_until: '2026-01-02T03:14:05Z',
  };
  const json = JSON.parse(reportFile(report, 'json', evidence).text) as TestResults & { results: { tag: string; args: unknown }[] };
  assert.deepEqual(json.results[2], { ...report.results[2], tag: 'TAG_2', args: { ns: 'ns2.example.test', n: 2 } });
  const csv = reportFile(report, 'csv', evidence).text.split('\r\n');
  assert.equal(csv[3], 'BASIC,Basic02,ERROR,TAG_2,"ns1 says ""no"", badly",,"{""ns"":""ns2.example.test"",""n"":2}"');
  assert.match(reportFile(report, 'txt', evidence).text, /Weak digest\n {11}TAG_4 \{"ns":"ns4\.example\.test","n":4\}\n$/);
});

test('a failed lookup shows its cause (the service\'s data.reason), not only "DNS lookup failed"', () => {
  const reason =
    'No root server answered (a.root-servers.net/198.41.0.4), so nothing could be looked up: check that this machine can reach the internet (or the root hints in use), then test again.';
  assert.equal(
    new RpcError(-32603, 'DNS lookup failed', { lookup: 'example.com', reason, tag: 'ROOT_SERVERS_UNREACHABLE' }).explanation,
    `DNS lookup failed: ${reason}`,
  );
  assert.equal(new RpcError(-32603, 'Test not found', { test_id: '0123456789abcdef' }).explanation, 'Test not found');
  assert.equal(
    new RpcError(-32602, 'Invalid method parameter(s).', [{ path: '/domain', message: 'Domain name is empty.' }]).explanation,
    'Invalid method parameter(s).',
  );
});
