// get_test_results speaks every configured language: each finding's text and the description of
// each test case its results name come from the engine's catalogue in the language asked for, in
// both tag forms. Findings outside any test case come as Unspecified, however they were stored.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { formatFinding, locales, testCaseDescription, type Finding } from '@app/engine';
import { claimNextTest, finishTest } from '../src/db/queue.ts';
import { LANGUAGE_TABLE, LANGUAGES } from '../src/shared/languages.ts';
import { writeConfigFixture } from './config-fixture.ts';
import { untitledFindings } from './gui-report.ts';
import { useService } from './rpc-harness.ts';

const iniFile = writeConfigFixture();

// Findings of several modules, with the arguments the engine gives these tags, and two outside any
// test case: one as engine 9.0.1 spells it, one as results stored by our earlier engine have it.
const findings: Finding[] = [
  { module: 'SYSTEM', testcase: 'Unspecified', tag: 'GLOBAL_VERSION', level: 'INFO', args: { version: '9.0.1' }, timestamp: 0 },
  {
    module: 'NAMESERVER',
    testcase: 'Nameserver03',
    tag: 'AXFR_AVAILABLE',
    level: 'NOTICE',
    args: { ns: 'ns1.lang.example.se/192.0.2.53' },
    timestamp: 1.5,
  },
  {
    module: 'DNSSEC',
    testcase: 'DNSSEC02',
    tag: 'DS02_NO_MATCH_DS_DNSKEY',
    level: 'ERROR',
    args: { keytag: 12345, ns_ip_list: '192.0.2.53;2001:db8::53' },
    timestamp: 2,
  },
  { module: 'DNSSEC', testcase: 'UNSPECIFIED', tag: 'NOT_SIGNED', level: 'NOTICE', args: { zone: 'lang.example.se' }, timestamp: 2.2 },
  {
    module: 'ZONE',
    testcase: 'Zone02',
    tag: 'REFRESH_MINIMUM_VALUE_LOWER',
    level: 'NOTICE',
    args: { refresh: 3600, required_refresh: 14400 },
    timestamp: 2.5,
  },
  { module: 'CONSISTENCY', testcase: 'Consistency01', tag: 'MULTIPLE_SOA_SERIALS', level: 'WARNING', args: { count: 2 }, timestamp: 3 },
];

test("the service's languages are the ones the engine speaks", () => {
  assert.deepEqual([...LANGUAGES].sort(), [...locales].sort());
});

for (const target of await testDatabaseTargets()) {
  describe(`get_test_results in every language on ${target.name}`, { skip: target.skip }, () => {
    const h = useService(target, (c) => c, iniFile);

    test('messages and test case descriptions follow the language', async () => {
      const id = (await h.call('start_domain_test', { domain: 'lang.example.se' })).result as string;
      const { db, dialect } = h.service.context.database;
      const claimed = await claimNextTest(db, dialect, 0, { agent: 'test', leaseSeconds: 600 });
      assert.equal(claimed?.hashId, id);
      assert.equal(await finishTest(db, id, findings), true);

      const seen = new Map<string, string>();
      for (const [language, { locale }] of Object.entries(LANGUAGE_TABLE)) {
        for (const tag of [language, locale]) {
          const reply = await h.call('get_test_results', { id, language: tag });
          assert.equal(reply.error, undefined, JSON.stringify(reply.error));
          const result = reply.result as {
            results: { module: string; message: string; level: string; testcase: string }[];
            testcase_descriptions: Record<string, string>;
          };
          assert.deepEqual(
            result.results.map((r) => r.message),
            findings.map((f) => formatFinding(f, language)),
            tag,
          );
          for (const message of result.results.map((r) => r.message))
            assert.doesNotMatch(message, /\{\w+\}|undefined/, `${tag}: ${message}`);
          assert.deepEqual(
            result.results.map((r) => r.testcase),
            ['Unspecified', 'Nameserver03', 'DNSSEC02', 'Unspecified', 'Zone02', 'Consistency01'],
          );
          // As the reference builds it: the test cases the results name, no more.
          assert.deepEqual(Object.keys(result.testcase_descriptions).sort(), [
            'Consistency01',
            'DNSSEC02',
            'Nameserver03',
            'Unspecified',
            'Zone02',
          ]);
          for (const [testcase, description] of Object.entries(result.testcase_descriptions)) {
            assert.equal(description, testCaseDescription(testcase, language), `${tag} ${testcase}`);
            assert.notEqual(description, testcase, `${tag} ${testcase} has a description of its own`);
          }
          assert.deepEqual(untitledFindings(result), [], `${tag}: every finding in a titled group, laid out as zonemaster-gui does`);
          seen.set(language, result.results[1].message);
        }
      }
      assert.equal(new Set(seen.values()).size, LANGUAGES.length, 'one text per language');
      assert.match(seen.get('fr')!, /^ns1\.lang\.example\.se\/192\.0\.2\.53 permet à n’importe qui de transférer toute la zone \(AXFR\)/);
      assert.match(seen.get('sv')!, /låter vem som helst överföra hela zonen/);
      assert.match(seen.get('sl')!, /^Strežnik ns1\.lang\.example\.se\/192\.0\.2\.53 vsakomur dovoli prenos celotne cone \(AXFR\)/);
    });
  });
}
