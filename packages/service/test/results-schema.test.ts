// The service's results against docs/results.schema.json, on every database: get_test_results in the
// reference's shape, and get_test_report (our addition) with each finding's tag, arguments and time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import type { Finding } from '@app/engine';
import { claimNextTest, finishTest } from '../src/db/queue.ts';
import { writeConfigFixture } from './config-fixture.ts';
import { assertValid, isValid } from './results-schema.ts';
import { useService } from './rpc-harness.ts';

const iniFile = writeConfigFixture();
const entries: Finding[] = [
  {
    module: 'BASIC',
    testcase: 'Basic01',
    tag: 'B01_PARENT_FOUND',
    level: 'INFO',
    args: { domain: 'se', ns_list: 'ns.se/192.0.2.1' },
    timestamp: 0.12,
  },
  {
    module: 'NAMESERVER',
    testcase: 'Nameserver01',
    tag: 'IS_A_RECURSOR',
    level: 'ERROR',
    args: { ns: 'ns1.schema.example.se', ns_ip: '192.0.2.53' },
    timestamp: 1.5,
  },
  { module: 'SYSTEM', testcase: 'UNSPECIFIED', tag: 'TEST_CASE_START', level: 'DEBUG', args: { testcase: 'Basic01' }, timestamp: 0 },
];

for (const target of await testDatabaseTargets()) {
  describe(`results against docs/results.schema.json on ${target.name}`, { skip: target.skip }, () => {
    const h = useService(target, (c) => c, iniFile);

    test('get_test_results of a run with the Transport module carries the transports table, valid, made from every stored finding', async () => {
      const id = (await h.call('start_domain_test', { domain: 'transports.example.se', profile: 'extended' })).result as string;
      const { db, dialect } = h.service.context.database;
      const claimed = await claimNextTest(db, dialect, 0, { agent: 'schema', leaseSeconds: 60 });
      assert.equal(claimed?.hashId, id);
      const ns = 'ns1.transports.example.se/192.0.2.53';
      const transport = (tag: string, level: Finding['level'], args: Finding['args']): Finding => ({
        module: 'TRANSPORT',
        testcase: 'Transport01',
        tag,
        level,
        args: { ns, ...args },
        timestamp: 1,
      });
      assert.equal(
        await finishTest(db, id, [
          transport('DOT_HANDSHAKE', 'INFO', {
            tls_version: 'TLSv1.3',
            alpn: 'dot',
            cert_names: 'ns1.transports.example.se',
            issuer: 'CN=CA',
            not_after: '2027-01-01T00:00:00.000Z',
            cert_valid: 'yes',
            soa_serial: 5,
          }),
          transport('DOH_NOT_OFFERED', 'INFO', {}),
          transport('TRANSPORT_SUMMARY', 'INFO', { udp_serial: 5, tcp_serial: 5, dot_serial: 5, doh_serial: '' }),
          // DEBUG: hidden from the results, still in the table.
          transport('TRANSPORT_TIMINGS', 'DEBUG', { udp_ms: 3, tcp_ms: 4, dot_ms: 30, doh_ms: '' }),
        ]),
        true,
      );
      const results = (await h.call('get_test_results', { id, language: 'fi' })).result as { transports: unknown[] };
      assertValid('service_results', results);
      assert.deepEqual(results.transports, [
        {
          ns: 'ns1.transports.example.se',
          address: '192.0.2.53',
          dot: {
            handshake: true,
            tls_version: 'TLSv1.3',
            alpn: 'dot',
            cert_names: ['ns1.transports.example.se'],
            cert_valid_for_ns: true,
            cert_not_after: '2027-01-01T00:00:00.000Z',
            soa_serial: 5,
          },
          doh: null,
          udp_soa_serial: 5,
          tcp_soa_serial: 5,
          ms: { udp: 3, tcp: 4, dot: 30, doh: null },
        },
      ]);
    });

    test('get_test_results and get_test_report of a finished test are valid; the report keeps tags, arguments and times', async () => {
      const id = (await h.call('start_domain_test', { domain: 'schema.example.se' })).result as string;
      const early = await h.call('get_test_report', { test_id: id });
      assert.deepEqual(early.error, { code: -32603, message: 'Test not finished', data: { test_id: id, progress: 0 } });
      const { db, dialect } = h.service.context.database;
      const claimed = await claimNextTest(db, dialect, 0, { agent: 'schema', leaseSeconds: 60 });
      assert.equal(claimed?.hashId, id);
      assert.equal(await finishTest(db, id, entries), true);

      const results = (await h.call('get_test_results', { id, language: 'sv' })).result;
      assertValid('service_results', results);
      const report = (await h.call('get_test_report', { test_id: id, language: 'sv' })).result as {
        findings: (Finding & { message: string })[];
        elapsed: number;
        overall_result: string;
        engine_version: string;
      };
      assertValid('service_report', report);
      assert.deepEqual(
        report.findings.map(({ message: _, ...finding }) => finding),
        entries.slice(0, 2),
        'the DEBUG finding is left out, the rest as stored',
      );
      assert.equal(report.overall_result, 'error');
      assert.equal(report.engine_version, h.service.context.engine.engineVersion);
      assert.ok(report.elapsed >= 0);
      assert.doesNotMatch(report.findings[1].message, /IS_A_RECURSOR/, 'the text, not the tag');
    });

    test('get_test_results carries the Automation module verdict under parent_ds, worded in the language asked for', async () => {
      const id = (await h.call('start_domain_test', { domain: 'parent-ds.example.se' })).result as string;
      const { db, dialect } = h.service.context.database;
      await claimNextTest(db, dialect, 0, { agent: 'schema', leaseSeconds: 60 });
      const ds = `parent-ds.example.se. 3600 IN DS 12345 13 2 ${'AB'.repeat(32)}`;
      const verdict: Finding = {
        module: 'AUTOMATION',
        testcase: 'Automation01',
        tag: 'PARENT_DS_PUBLISH',
        level: 'NOTICE',
        args: { count: 1, ds_list: ds },
        timestamp: 2,
      };
      assert.equal(await finishTest(db, id, [...entries, verdict]), true);
      const results = (await h.call('get_test_results', { id, language: 'fr' })).result as {
        parent_ds?: { action: string; ds: string[]; reason: string };
      };
      assertValid('service_results', results);
      assert.equal(results.parent_ds?.action, 'publish');
      assert.deepEqual(results.parent_ds?.ds, [ds]);
      assert.match(results.parent_ds?.reason ?? '', /publierait/);
      assert.equal(isValid('service_results', { ...results, parent_ds: { action: 'replace', ds: [], reason: 'x' } }), false);
    });

    test('an extended run with the Zone integrity module: get_test_results carries its summary, valid against the schema', async () => {
      const id = (await h.call('start_domain_test', { domain: 'zonemd.example.se' })).result as string;
      const { db, dialect } = h.service.context.database;
      await claimNextTest(db, dialect, 0, { agent: 'schema', leaseSeconds: 60 });
      const zi = (testcase: string, tag: string, level: Finding['level'], args: Finding['args']): Finding => ({
        module: 'ZONE_INTEGRITY',
        testcase,
        tag,
        level,
        args,
        timestamp: 1,
      });
      const ns1 = 'ns1.zonemd.example.se/192.0.2.1';
      const ns2 = 'ns2.zonemd.example.se/192.0.2.2';
      const findings = [
        zi('ZoneIntegrity01', 'ZONEMD_SAME_ON_ALL', 'INFO', { zonemd: '1 1 1 ab', count: 2 }),
        zi('ZoneIntegrity01', 'ZONEMD_DIGEST_VERIFIED', 'INFO', { ns: ns1, serial: 1, scheme: 1, algorithm: 1 }),
        zi('ZoneIntegrity01', 'ZONEMD_TRANSFER_REFUSED', 'INFO', { ns_list: ns2 }),
        zi('ZoneIntegrity02', 'NSEC3_HASHED_NAMES', 'INFO', {
          domain: 'zonemd.example.se',
          iterations: 0,
          salt: '-',
          opt_out: false,
          guess_cost: 1,
        }),
        zi('ZoneIntegrity02', 'NSEC3_HASH_MATCHED', 'INFO', {
          name: 'zonemd.example.se',
          hash: 'o6ef24qeh1u4vcdahgdtfuh4vavjf62i',
          salt: '-',
          iterations: 0,
          owner: 'x',
        }),
        zi('ZoneIntegrity02', 'NSEC3_PARAMETERS_ADVISED', 'INFO', { domain: 'zonemd.example.se' }),
      ];
      assert.equal(await finishTest(db, id, findings), true);
      const results = (await h.call('get_test_results', { id, language: 'fi' })).result as { zone_integrity: unknown };
      assertValid('service_results', results);
      assert.deepEqual(results.zone_integrity, {
        zonemd: {
          verdict: 'verified',
          same_on_all_servers: true,
          servers: [
            { ns: 'ns1.zonemd.example.se', address: '192.0.2.1', result: 'verified' },
            { ns: 'ns2.zonemd.example.se', address: '192.0.2.2', result: 'refused' },
          ],
        },
        walk: {
          denial: 'nsec3',
          listable: false,
          nsec3: { iterations: 0, salt: '-', opt_out: false, as_rfc9276_advises: true },
          hashes: [{ name: 'zonemd.example.se', hash: 'o6ef24qeh1u4vcdahgdtfuh4vavjf62i' }],
        },
      });
    });

    test('the schema is not a formality: what the service does not promise fails it', () => {
      const finding = { module: 'BASIC', testcase: 'Basic01', tag: 'B01_PARENT_FOUND', level: 'INFO', args: {}, timestamp: 0 };
      assert.equal(isValid('findings', [finding]), true);
      assert.equal(isValid('findings', [{ ...finding, tag: undefined }]), false);
      assert.equal(isValid('findings', [{ ...finding, level: 'FATAL' }]), false);
      assert.equal(isValid('findings', [{ ...finding, args: { list: ['a'] } }]), false);
      assert.equal(isValid('findings', [{ ...finding, timestamp: -1 }]), false);
      assert.equal(isValid('run', { engine_version: '1', domain: 'a.se', elapsed: 1, findings: [], extra: 1 }), false);
    });
  });
}
