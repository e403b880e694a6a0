// get_test_results speaks every configured language: each finding's text and every test case's
// description come from the engine's catalogue in the language asked for, in both tag forms.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { formatFinding, testCaseDescription, testCaseIds, type Finding } from '@app/engine';
import { claimNextTest, finishTest } from '../src/db/queue.ts';
import { writeConfigFixture } from './config-fixture.ts';
import { useService } from './rpc-harness.ts';

const iniFile = writeConfigFixture();
const countries = { da: 'DK', en: 'US', es: 'ES', fi: 'FI', fr: 'FR', nb: 'NO', sv: 'SE' } as const;

// Findings of several modules, with the arguments the engine gives these tags.
const findings: Finding[] = [
  { module: 'NAMESERVER', testcase: 'Nameserver03', tag: 'AXFR_AVAILABLE', level: 'NOTICE', args: { ns: 'ns1.lang.example.se/192.0.2.53' }, timestamp: 1.5 },
  { module: 'DNSSEC', testcase: 'DNSSEC02', tag: 'DS02_NO_MATCH_DS_DNSKEY', level: 'ERROR', args: { keytag: 12345, ns_ip_list: '192.0.2.53;2001:db8::53' }, timestamp: 2 },
  { module: 'ZONE', testcase: 'Zone02', tag: 'REFRESH_MINIMUM_VALUE_LOWER', level: 'NOTICE', args: { refresh: 3600, required_refresh: 14400 }, timestamp: 2.5 },
  { module: 'CONSISTENCY', testcase: 'Consistency01', tag: 'MULTIPLE_SOA_SERIALS', level: 'WARNING', args: { count: 2 }, timestamp: 3 },
];

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
      for (const [language, country] of Object.entries(countries)) {
        for (const tag of [language, `${language}_${country}`]) {
          const reply = await h.call('get_test_results', { id, language: tag });
          assert.equal(reply.error, undefined, JSON.stringify(reply.error));
          const result = reply.result as { results: { module: string; message: string; level: string; testcase: string }[]; testcase_descriptions: Record<string, string> };
          assert.deepEqual(result.results.map((r) => r.message), findings.map((f) => formatFinding(f, language)), tag);
          for (const message of result.results.map((r) => r.message)) assert.doesNotMatch(message, /\{\w+\}|undefined/, `${tag}: ${message}`);
          assert.deepEqual(Object.keys(result.testcase_descriptions).sort(), testCaseIds().sort());
          for (const [testcase, description] of Object.entries(result.testcase_descriptions)) assert.equal(description, testCaseDescription(testcase, language), `${tag} ${testcase}`);
          seen.set(language, result.results[0].message);
        }
      }
      assert.equal(new Set(seen.values()).size, Object.keys(countries).length, 'seven languages, seven texts');
      assert.match(seen.get('fr')!, /^ns1\.lang\.example\.se\/192\.0\.2\.53 permet à n’importe qui de transférer toute la zone \(AXFR\)/);
      assert.match(seen.get('sv')!, /låter vem som helst överföra hela zonen/);
    });
  });
}
