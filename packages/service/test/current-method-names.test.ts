// The reference's newer method names (Zonemaster Backend 11) next to the spec's: each pair gives the
// same answer (wrapped where the newer name wraps it) and the same errors, on every database.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { claimNextTest, finishTest } from '../src/db/queue.ts';
import { writeConfigFixture } from './config-fixture.ts';
import { useService, type Harness } from './rpc-harness.ts';

const iniFile = writeConfigFixture();
const claimant = { agent: 'conformance', leaseSeconds: 600 };

async function result(h: Harness, method: string, params?: unknown): Promise<unknown> {
  const reply = await h.call(method, params);
  assert.equal(reply.error, undefined, `${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

/** Both names fail alike: same code, message and data. */
async function sameError(h: Harness, older: [string, unknown], newer: [string, unknown]): Promise<void> {
  const a = await h.call(...older);
  const b = await h.call(...newer);
  assert.ok(a.error, `${older[0]} should fail`);
  assert.deepEqual(b.error, a.error, `${newer[0]} fails as ${older[0]} does`);
}

for (const target of await testDatabaseTargets()) {
  describe(`the newer method names on ${target.name}`, { skip: target.skip }, () => {
    const h = useService(target, (c) => c, iniFile);

    test('system_versions, conf_profiles, conf_languages', async () => {
      assert.deepEqual(await result(h, 'system_versions'), await result(h, 'version_info'));
      assert.deepEqual(await result(h, 'conf_profiles'), { profiles: await result(h, 'profile_names') });
      assert.deepEqual(await result(h, 'conf_languages'), { languages: await result(h, 'get_language_tags') });
      for (const [older, newer] of [
        ['version_info', 'system_versions'],
        ['profile_names', 'conf_profiles'],
        ['get_language_tags', 'conf_languages'],
      ]) {
        await sameError(h, [older, { extra: 1 }], [newer, { extra: 1 }]);
      }
    });

    test('lookup_address_records and lookup_delegation_data validate as the older names do', async () => {
      await sameError(h, ['get_host_by_name', { hostname: 'a..b' }], ['lookup_address_records', { hostname: 'a..b' }]);
      await sameError(h, ['get_host_by_name', {}], ['lookup_address_records', {}]);
      await sameError(
        h,
        ['get_data_from_parent_zone', { domain: '', language: 'sv' }],
        ['lookup_delegation_data', { domain: '', language: 'sv' }],
      );
    });

    test('job_create, job_status, job_params: one queue, one reuse rule, { job_id } and { progress }', async () => {
      const params = {
        domain: 'Job.Example.SE',
        nameservers: [{ ns: 'ns1.example.se', ip: '192.0.2.1' }],
        profile: 'IPv4-Only',
        client_id: 'newer',
      };
      const created = (await result(h, 'job_create', params)) as { job_id: string };
      assert.deepEqual(Object.keys(created), ['job_id']);
      assert.match(created.job_id, /^[0-9a-f]{16}$/);
      // The same test asked for under the older name is the same test (the reuse rule is shared).
      assert.equal(await result(h, 'start_domain_test', params), created.job_id);
      assert.deepEqual(await result(h, 'job_status', { job_id: created.job_id }), {
        progress: await result(h, 'test_progress', { test_id: created.job_id }),
      });
      assert.deepEqual(
        await result(h, 'job_params', { job_id: created.job_id }),
        await result(h, 'get_test_params', { test_id: created.job_id }),
      );
      // RPCAPI.pm's schema takes the deprecated `config` (a string) and ignores it: no new test, nothing stored.
      assert.deepEqual(await result(h, 'job_create', { ...params, config: 'some/old/config.json' }), created);
      assert.equal(((await result(h, 'job_params', { job_id: created.job_id })) as Record<string, unknown>).config, undefined);
      await sameError(h, ['start_domain_test', { domain: 'a', config: {} }], ['job_create', { domain: 'a', config: {} }]);
      await sameError(h, ['start_domain_test', { domain: 'a', profile: 'nope' }], ['job_create', { domain: 'a', profile: 'nope' }]);
      await sameError(
        h,
        ['start_domain_test', { domain: 'x.se', nameservers: [{ ns: 'n.se', ip: 'bad' }], language: 'fr' }],
        ['job_create', { domain: 'x.se', nameservers: [{ ns: 'n.se', ip: 'bad' }], language: 'fr' }],
      );
      await sameError(h, ['test_progress', { test_id: '0123456789abcdef' }], ['job_status', { job_id: '0123456789abcdef' }]);
      await sameError(h, ['get_test_params', { test_id: '0123456789abcdef' }], ['job_params', { job_id: '0123456789abcdef' }]);
      const refused = await h.call('job_status', { test_id: created.job_id });
      assert.deepEqual(refused.error?.data, [
        { path: '/test_id', message: 'Unknown property' },
        { path: '/job_id', message: 'Missing property' },
      ]);
    });

    test('job_results and domain_history answer as get_test_results and get_test_history', async () => {
      const { job_id } = (await result(h, 'job_create', { domain: 'history.example.se' })) as { job_id: string };
      await sameError(h, ['get_test_results', { id: job_id, language: 'en' }], ['job_results', { job_id, language: 'en' }]);
      const { db, dialect } = h.service.context.database;
      for (let claimed = await claimNextTest(db, dialect, 0, claimant); claimed; claimed = await claimNextTest(db, dialect, 0, claimant)) {
        await finishTest(db, claimed.hashId, [
          {
            module: 'BASIC',
            testcase: 'Basic01',
            tag: 'B01_PARENT_FOUND',
            level: 'WARNING',
            args: { domain: 'se', ns_list: 'ns.se/192.0.2.1' },
            timestamp: 0.5,
          },
        ]);
      }
      // RPCAPI.pm's job_results: the test id as job_id, and neither hash_id nor creation_time.
      for (const language of ['fr', 'sv']) {
        const older = (await result(h, 'get_test_results', { id: job_id, language })) as Record<string, unknown>;
        const newer = (await result(h, 'job_results', { job_id, language })) as Record<string, unknown>;
        assert.deepEqual(Object.keys(newer).sort(), ['created_at', 'job_id', 'params', 'results', 'testcase_descriptions']);
        assert.deepEqual(newer, {
          created_at: older.created_at,
          job_id,
          results: older.results,
          params: older.params,
          testcase_descriptions: older.testcase_descriptions,
        });
      }
      // RPCAPI.pm's domain_history: the domain in `params`, each entry {job_id, created_at, overall_result, undelegated}.
      const older = (await result(h, 'get_test_history', {
        frontend_params: { domain: 'history.example.se' },
        filter: 'delegated',
        limit: 5,
      })) as Record<string, unknown>[];
      const history = (await result(h, 'domain_history', { params: { domain: 'history.example.se' }, filter: 'delegated', limit: 5 })) as {
        history: Record<string, unknown>[];
      };
      assert.deepEqual(history, {
        history: older.map((e) => ({
          job_id: e.id,
          created_at: e.created_at,
          overall_result: e.overall_result,
          undelegated: e.undelegated,
        })),
      });
      assert.deepEqual(Object.keys(history.history[0] ?? {}), ['job_id', 'created_at', 'overall_result', 'undelegated']);
      assert.equal(history.history[0]?.job_id, job_id);
      assert.equal(history.history[0]?.overall_result, 'warning');
      assert.equal(history.history[0]?.undelegated, false);
      // The top-level `domain` our docs gave before is still taken, with the same answer.
      assert.deepEqual(await result(h, 'domain_history', { domain: 'history.example.se', filter: 'delegated', limit: 5 }), history);
      await sameError(
        h,
        ['get_test_history', { frontend_params: { domain: 'x.se' }, filter: 'some' }],
        ['domain_history', { params: { domain: 'x.se' }, filter: 'some' }],
      );
      const invalid = async (params: unknown) => {
        const reply = await h.call('domain_history', params);
        assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
        return reply.error?.data;
      };
      assert.deepEqual(await invalid({}), [{ path: '/params', message: 'Missing property' }]);
      assert.deepEqual(await invalid({ params: {} }), [{ path: '/params/domain', message: 'Missing property' }]);
      assert.deepEqual(await invalid({ params: { domain: 'a..b' } }), [
        { path: '/params/domain', message: 'Domain name has repeated dots.' },
      ]);
      assert.deepEqual(await invalid({ params: { domain: 'x.se', extra: 1 } }), [{ path: '/params/extra', message: 'Unknown property' }]);
      assert.deepEqual(await invalid({ params: { domain: 'x.se' }, domain: 'x.se' }), [
        { path: '/domain', message: 'Not allowed together with "params"' },
      ]);
      assert.deepEqual(await invalid({ frontend_params: { domain: 'x.se' } }), [
        { path: '/params', message: 'Missing property' },
        { path: '/frontend_params', message: 'Unknown property' },
      ]);
    });

    test('user_create and batch_create: { success } and { batch_id }, refused alike', async () => {
      assert.deepEqual(await result(h, 'user_create', { username: 'newer', api_key: 'key' }), { success: 1 });
      await sameError(h, ['add_api_user', { username: 'newer', api_key: 'key' }], ['user_create', { username: 'newer', api_key: 'key' }]);
      const created = (await result(h, 'batch_create', {
        username: 'newer',
        api_key: 'key',
        domains: ['b1.example.se', 'b2.example.se', 'b3.example.se'],
      })) as { batch_id: number };
      assert.deepEqual(Object.keys(created), ['batch_id']);
      // The one-unfinished-batch rule is the same rule under both names.
      await sameError(
        h,
        ['add_batch_job', { username: 'newer', api_key: 'key', domains: ['c.se'] }],
        ['batch_create', { username: 'newer', api_key: 'key', domains: ['c.se'] }],
      );
      await sameError(
        h,
        ['add_batch_job', { username: 'newer', api_key: 'wrong', domains: ['c.se'] }],
        ['batch_create', { username: 'newer', api_key: 'wrong', domains: ['c.se'] }],
      );
      await sameError(
        h,
        ['add_batch_job', { username: 'newer', api_key: 'key', domains: [] }],
        ['batch_create', { username: 'newer', api_key: 'key', domains: [] }],
      );
    });

    test("batch_create takes the tests' params as the reference names them (job_params), or as test_params", async () => {
      const { db, dialect } = h.service.context.database;
      const finishBatch = async () => {
        for (let left = await claimNextTest(db, dialect, 0, claimant); left; left = await claimNextTest(db, dialect, 0, claimant))
          await finishTest(db, left.hashId, []);
      };
      await result(h, 'user_create', { username: 'jobparams', api_key: 'key' });
      const given = {
        nameservers: [{ ns: 'ns1.jp.example.se', ip: '192.0.2.53' }],
        priority: 7,
        profile: 'IPv4-Only',
        client_id: 'job-params',
      };
      for (const name of ['job_params', 'test_params']) {
        await finishBatch();
        const { batch_id } = (await result(h, 'batch_create', {
          username: 'jobparams',
          api_key: 'key',
          domains: [`${name.replace('_', '-')}.example.se`],
          [name]: given,
        })) as { batch_id: number };
        const { waiting_tests } = (await result(h, 'batch_status', { batch_id, list_waiting_tests: true })) as { waiting_tests: string[] };
        assert.equal(waiting_tests.length, 1);
        const params = (await result(h, 'job_params', { job_id: waiting_tests[0] })) as Record<string, unknown>;
        assert.deepEqual(
          [params.nameservers, params.priority, params.profile, params.client_id, params.ipv6],
          [given.nameservers, 7, 'ipv4-only', 'job-params', false],
          name,
        );
      }
      await finishBatch();
      const both = await h.call('batch_create', {
        username: 'jobparams',
        api_key: 'key',
        domains: ['both.example.se'],
        job_params: {},
        test_params: {},
      });
      assert.deepEqual(both.error?.data, [{ path: '/test_params', message: 'Not allowed together with "job_params"' }]);
      const bad = await h.call('batch_create', {
        username: 'jobparams',
        api_key: 'key',
        domains: ['bad.example.se'],
        job_params: { priority: 'high', queue: 1, extra: true },
      });
      assert.deepEqual(bad.error?.data, [
        { path: '/job_params/extra', message: 'Unknown property' },
        { path: '/job_params/priority', message: 'Expected an integer' },
      ]);
    });

    test('batch_status: waiting, running and finished counts, with the lists asked for', async () => {
      const { db, dialect } = h.service.context.database;
      // Earlier tests' waiting tests out of the way, so the claims below take this batch's.
      for (let left = await claimNextTest(db, dialect, 0, claimant); left; left = await claimNextTest(db, dialect, 0, claimant))
        await finishTest(db, left.hashId, []);
      await result(h, 'user_create', { username: 'status', api_key: 'key' });
      const { batch_id } = (await result(h, 'batch_create', {
        username: 'status',
        api_key: 'key',
        domains: ['s1.example.se', 's2.example.se', 's3.example.se'],
      })) as { batch_id: number };
      assert.deepEqual(await result(h, 'batch_status', { batch_id }), { waiting_count: 3, running_count: 0, finished_count: 0 });
      const first = await claimNextTest(db, dialect, 0, claimant);
      const second = await claimNextTest(db, dialect, 0, claimant);
      assert.ok(first && second);
      await finishTest(db, first.hashId, []);
      const all = (await result(h, 'batch_status', {
        batch_id: String(batch_id),
        list_waiting_tests: 1,
        list_running_tests: 'yes',
        list_finished_tests: true,
      })) as Record<string, unknown>;
      const older = (await result(h, 'get_batch_job_result', { batch_id })) as { finished_test_ids: string[]; nb_running: number };
      assert.deepEqual(all.finished_tests, older.finished_test_ids);
      assert.deepEqual(all.running_tests, [second.hashId]);
      assert.equal((all.waiting_tests as string[]).length, 1);
      assert.deepEqual([all.waiting_count, all.running_count, all.finished_count], [1, 1, 1]);
      assert.equal(older.nb_running, 2, 'the older method counts waiting tests as running');
      const some = (await result(h, 'batch_status', { batch_id, list_finished_tests: true, list_running_tests: false })) as Record<
        string,
        unknown
      >;
      assert.deepEqual(Object.keys(some).sort(), ['finished_count', 'finished_tests', 'running_count', 'waiting_count']);
      await sameError(h, ['get_batch_job_result', { batch_id: 999_999 }], ['batch_status', { batch_id: 999_999 }]);
      const bad = await h.call('batch_status', { batch_id: 0 });
      assert.deepEqual(bad.error?.data, [{ path: '/batch_id', message: 'Must be a positive integer' }]);
    });
  });

  describe(`the newer names are switched off with the older ones, on ${target.name}`, { skip: target.skip }, () => {
    const h = useService(target, (c) => ({ ...c, enableAddApiUser: false, enableAddBatchJob: false }), iniFile);
    test('user_create and batch_create are -32601 when add_api_user and add_batch_job are', async () => {
      for (const method of ['add_api_user', 'user_create', 'add_batch_job', 'batch_create']) {
        assert.deepEqual((await h.call(method, { username: 'u', api_key: 'k' })).error, { code: -32601, message: 'Procedure not found' });
      }
    });
  });
}
