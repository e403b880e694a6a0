// A test's evidence on each database: the agent keeps the query log its run produced (with the test case that sent
// each query) and, while the run goes on, what it waits for; the methods give them back, decoded.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { encodeMessage, Name, RRType, RRClass } from '@app/dns';
import type { Finding, RunOptions, TestInput } from '@app/engine';
import { Agent } from '../src/agent/agent.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { enqueueTest, findTest } from '../src/db/tests.ts';
import { evidenceMethods } from '../src/methods/evidence.ts';
import type { ServiceContext } from '../src/methods/context.ts';
import { agentConfig, migratedDatabase, params, profiles, waitFor } from './agent/agent-fixture.ts';

const reply = Buffer.from(
  encodeMessage({
    id: 1,
    qr: true,
    aa: true,
    question: [{ name: Name.fromString('evidence.test'), type: RRType.SOA, class: RRClass.IN }],
    answer: [
      {
        name: Name.fromString('evidence.test'),
        type: RRType.NS,
        class: RRClass.IN,
        ttl: 3600,
        rdata: { target: Name.fromString('ns1.evidence.test') },
      },
    ],
  }),
).toString('base64');

/** A run that sends two queries for Basic01 (one answered, one never), reports its test cases, and waits a little. */
async function scriptedRun(_input: TestInput, options: RunOptions): Promise<Finding[]> {
  const sending = {
    server: 'ns1.evidence.test/192.0.2.1',
    qname: 'evidence.test.',
    qtype: RRType.SOA,
    transport: 'udp' as const,
    testcase: 'Basic01',
  };
  options.onSend?.({ ...sending, id: 1 });
  options.onSend?.({ ...sending, qtype: RRType.NS, id: 2, testcase: 'Basic02' });
  options.onProgress?.(50, { done: 1, total: 2 });
  options.onExchange?.({ ...sending, id: 1, qclass: 1, flags: {}, at: 0, ms: 3, reply });
  await delay(2500); // long enough for the activity to be written while query 2 waits
  options.onExchange?.({ ...sending, qtype: RRType.NS, id: 2, testcase: 'Basic02', qclass: 1, flags: {}, at: 0, ms: 2500 });
  return [
    {
      module: 'BASIC',
      testcase: 'Basic01',
      tag: 'HAS_PARENT',
      level: 'INFO',
      args: { zone: 'evidence.test', pname: 'test' },
      timestamp: 0,
    },
  ];
}

for (const target of await testDatabaseTargets()) {
  describe(`test evidence on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<ServiceSchema>;
    let agent: Agent;
    before(async () => {
      ({ throwaway, database } = await migratedDatabase(target));
      agent = new Agent({ database, config: agentConfig(), profiles, runTests: scriptedRun, log: () => undefined });
      agent.start();
    });
    after(async () => {
      await agent?.stop(0);
      await database?.close();
      await throwaway?.drop();
    });

    test('what a run waits for while it runs, then its queries by test case with the records answered', async () => {
      const id = await enqueueTest(database.db, params('evidence.test'), 0);
      const methods = evidenceMethods({ database, config: { ageReusePreviousTestSeconds: 600 } } as unknown as ServiceContext);
      const activity = await waitFor('the activity of the run', async () => {
        const now = (await methods.test_activity.run({ test_id: id }, { remoteAddress: '127.0.0.1' })) as { waiting_for?: unknown[] };
        return (now.waiting_for?.length ?? 0) > 0 && now;
      });
      assert.deepEqual(activity, {
        progress: 50,
        testcases_done: 1,
        testcases_total: 2,
        waiting_for: [
          {
            server: 'ns1.evidence.test/192.0.2.1',
            qname: 'evidence.test.',
            qtype: 'NS',
            testcase: 'Basic02',
            seconds: (activity as { waiting_for: { seconds: number }[] }).waiting_for[0]?.seconds,
          },
        ],
      });
      await waitFor('the test to finish', async () => (await findTest(database.db, id))?.progress === 100);
      const evidence = await waitFor('the query log', async () => {
        const found = (await methods.get_test_evidence.run({ id }, { remoteAddress: '127.0.0.1' })) as {
          query_log: unknown;
          results: unknown;
          query_counts: unknown;
        };
        return found.query_log !== null && found;
      });
      // Figures of the log, not a bare flag: Basic01's SOA was answered, Basic02's NS was not.
      assert.deepEqual(evidence.query_log, { queries: 2, servers: 1, unanswered: 1 });
      assert.deepEqual(evidence.results, [{ tag: 'HAS_PARENT', args: { zone: 'evidence.test', pname: 'test' } }]);
      assert.deepEqual(evidence.query_counts, { Basic01: 1, Basic02: 1 });
      const basic01 = await methods.get_test_queries.run({ id, testcase: 'basic01' }, { remoteAddress: '127.0.0.1' });
      assert.deepEqual(basic01, [
        {
          server: 'ns1.evidence.test/192.0.2.1',
          qname: 'evidence.test.',
          qtype: 'SOA',
          transport: 'udp',
          ms: 3,
          rcode: 'NOERROR',
          flags: ['aa'],
          answer: ['evidence.test. 3600 IN NS ns1.evidence.test.'],
          authority: [],
          additional: [],
        },
      ]);
      const basic02 = await methods.get_test_queries.run({ id, testcase: 'Basic02' }, { remoteAddress: '127.0.0.1' });
      assert.deepEqual(
        basic02,
        [{ server: 'ns1.evidence.test/192.0.2.1', qname: 'evidence.test.', qtype: 'NS', transport: 'udp', ms: 2500 }],
        'no reply: no rcode',
      );

      // A run whose log was not kept says so with null, not false or an empty summary.
      const row = await findTest(database.db, id);
      await database.db.deleteFrom('dh_test_queries').where('test_id', '=', row!.id).execute();
      const without = (await methods.get_test_evidence.run({ id }, { remoteAddress: '127.0.0.1' })) as { query_log: unknown };
      assert.equal(without.query_log, null);
    });
  });
}
