// Rollover alerts through a watch on each database: the run's stored query log becomes its DNSSEC
// snapshot, and a signature nearing its expiry sends one signed webhook and one e-mail in the watch's
// language, once. The log is the engine's saved run of wrongds.test (engine/test/fixtures); the runs'
// ends are set around its first signature's expiry.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { dnssecSnapshot, formatFinding, type Exchange, type Finding } from '@app/engine';
import { simpleParser } from 'mailparser';
import { finishTest } from '../src/db/queue.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { loggedQuery, storeQueryLog } from '../src/db/test-evidence.ts';
import { addWatch } from '../src/db/watches.ts';
import { Watcher } from '../src/watch/watcher.ts';
import { migratedDatabase, params } from './agent/agent-fixture.ts';
import { settle } from './rpc-harness.ts';
import {
  loopbackCertificate,
  startSmtpReceiver,
  startWebhookReceiver,
  type SmtpReceiver,
  type WebhookReceiver,
} from './watch/receivers.ts';

const saved = JSON.parse(readFileSync(new URL('../../engine/test/fixtures/wrongds-run.json', import.meta.url), 'utf8')) as {
  domain: string;
  exchanges: Exchange[];
};
const expiry = dnssecSnapshot(saved.domain, saved.exchanges).servers[0]?.earliestExpiry;
const healthy: Finding[] = [
  { module: 'SYSTEM', testcase: 'Unspecified', tag: 'GLOBAL_VERSION', level: 'INFO', args: { version: '1' }, timestamp: 0 },
];

for (const target of await testDatabaseTargets()) {
  describe(`rollover alerts on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<ServiceSchema>;
    let hook: WebhookReceiver;
    let smtp: SmtpReceiver;
    let caFile: string;
    before(async () => {
      ({ throwaway, database } = await migratedDatabase(target));
      const pems = await loopbackCertificate();
      hook = await startWebhookReceiver(pems);
      smtp = await startSmtpReceiver(pems);
      caFile = join(mkdtempSync(join(tmpdir(), 'rollover-ca-')), 'ca.pem');
      writeFileSync(caFile, pems.cert);
    });
    after(async () => {
      await hook?.close();
      await smtp?.close();
      await database?.close();
      await settle();
      await throwaway?.drop();
    });

    test('an expiring signature: told once, 2 TTL + the interval + a minute ahead, naming the RRset and the time', async () => {
      assert.ok(expiry !== undefined);
      await addWatch(database.db, database.dialect, {
        username: null,
        params: params(saved.domain),
        schedule: 'every 1h',
        language: 'fr',
        webhookUrl: hook.url,
        webhookSecret: 'secret',
        email: 'hostmaster@wrongds.test',
        firstRunAt: '2026-11-26T00:00:00.000Z',
      });
      const smtpSettings = {
        host: '127.0.0.1',
        port: smtp.port,
        secure: false,
        user: smtp.user,
        password: smtp.password,
        from: 'dns@example.org',
      };
      const settings = { publicUrl: 'https://dns.example', pollSeconds: 5, caFile, smtp: smtpSettings, allowedNetworks: ['127.0.0.1'] };
      const watcher = new Watcher({ database, engine: { formatFinding }, settings, webhook: { firstDelayMs: 50 }, log: () => undefined });
      const due = expiry.expiration - 2 * expiry.ttl - 3600 - 60;
      const run = async (tickAt: string, endedAt: number) => {
        const { enqueued } = await watcher.tick(new Date(tickAt));
        const testId = enqueued[0] ?? '';
        await finishTest(database.db, testId, healthy);
        await database.db
          .updateTable('dh_test')
          .set({ ended_at: new Date(endedAt * 1000).toISOString() })
          .where('hash_id', '=', testId)
          .execute();
        await storeQueryLog(database.db, testId, saved.exchanges.map(loggedQuery));
        await watcher.tick(new Date(tickAt));
        await watcher.idle();
        return testId;
      };
      await run('2026-11-26T00:00:00Z', due - 3600);
      assert.equal(hook.received.length, 0, 'an hour before it is due: nothing');
      const alerted = await run('2026-11-26T01:00:00Z', due + 1);
      await run('2026-11-26T02:00:00Z', due + 1800);
      assert.equal(hook.received.length, 1, 'one alert, not one per run');
      const body = JSON.parse(hook.received[0]?.body ?? '{}') as {
        event: string;
        test_id: string;
        history_url: string;
        issues: { kind: string; owner: string; type: string; expiration: string; ttl: number; servers: string[]; message: string }[];
      };
      assert.equal(body.event, 'watch.dnssec_rollover');
      assert.equal(body.test_id, alerted);
      assert.equal(body.history_url, 'https://dns.example/history/wrongds.test');
      const issue = body.issues[0];
      assert.deepEqual(
        [issue?.kind, issue?.owner, issue?.type, issue?.expiration, issue?.ttl, issue?.servers.length],
        ['signature_expiry', 'wrongds.test.', 'DNSKEY', new Date(expiry.expiration * 1000).toISOString().replace('.000Z', 'Z'), 3600, 4],
      );
      assert.match(issue?.message ?? '', /^La signature de wrongds\.test\. DNSKEY expire le /);
      assert.equal(smtp.mails.length, 1);
      const mail = await simpleParser(smtp.mails[0]?.raw ?? '');
      assert.equal(mail.subject, 'wrongds.test : DNSSEC demande une action avant que les résolveurs échouent');
      assert.match(mail.text ?? '', /SERVFAIL/);
    });
  });
}
