// Watches on each database: schedules, two instances racing for the same due runs and finished runs,
// and the alerts a change sends to a real HTTPS webhook receiver and a real SMTP server.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { formatFinding, type Finding } from '@app/engine';
import { simpleParser } from 'mailparser';
import { finishTest } from '../src/db/queue.ts';
import type { ServiceSchema } from '../src/db/tables.ts';
import { addWatch, listWatches } from '../src/db/watches.ts';
import { firstRun, nextRun, parseSchedule, scheduleText } from '../src/schedules/schedule.ts';
import { alertTargets } from '../src/alerts/alert-targets.ts';
import { Watcher } from '../src/watch/watcher.ts';
import { deliverWebhook } from '../src/alerts/webhook.ts';
import { emailMessage } from '../src/watch/alert-message.ts';
import { LANGUAGES } from '../src/shared/languages.ts';
import { migratedDatabase, params } from './agent/agent-fixture.ts';
import { settle } from './rpc-harness.ts';
import {
  connectionCounter,
  loopbackCertificate,
  startSmtpReceiver,
  startWebhookReceiver,
  type Pems,
  type SmtpReceiver,
  type WebhookReceiver,
} from './watch/receivers.ts';

test('schedules: every N minutes or hours, daily at HH:MM UTC; anything else is refused', () => {
  assert.deepEqual(parseSchedule('every 6h'), { kind: 'every', minutes: 360 });
  assert.deepEqual(parseSchedule('Every 90 minutes'), { kind: 'every', minutes: 90 });
  assert.deepEqual(parseSchedule('daily 03:00'), { kind: 'daily', hour: 3, minute: 0 });
  assert.deepEqual(parseSchedule('daily at 23:59 UTC'), { kind: 'daily', hour: 23, minute: 59 });
  for (const bad of ['', 'hourly', 'every 0h', 'every 6 days', 'daily 24:00', 'daily 3', 'every 10081m'])
    assert.equal(parseSchedule(bad), undefined, bad);
  assert.equal(scheduleText({ kind: 'every', minutes: 360 }), 'every 6h');
  assert.equal(scheduleText({ kind: 'every', minutes: 90 }), 'every 90m');
  assert.equal(scheduleText({ kind: 'daily', hour: 3, minute: 5 }), 'daily 03:05');
  const at = new Date('2026-11-26T04:10:00Z');
  assert.equal(nextRun({ kind: 'daily', hour: 3, minute: 0 }, at).toISOString(), '2026-11-27T03:00:00.000Z');
  assert.equal(nextRun({ kind: 'daily', hour: 5, minute: 0 }, at).toISOString(), '2026-11-26T05:00:00.000Z');
  assert.equal(nextRun({ kind: 'every', minutes: 360 }, at).toISOString(), '2026-11-26T10:10:00.000Z');
  assert.equal(firstRun({ kind: 'every', minutes: 360 }, at).toISOString(), at.toISOString());
});

const fmt = { formatFinding };
// The receivers in these tests listen on loopback, which alerts reach only when the operator lists it.
const loopbackAllowed = alertTargets({ allowedNetworks: ['127.0.0.1'] });
const silent = () => undefined;
const noResponse = (ns: string): Finding => ({
  module: 'CONNECTIVITY',
  testcase: 'Connectivity01',
  tag: 'CN01_NO_RESPONSE_UDP',
  level: 'ERROR',
  args: { ns },
  timestamp: 1,
});
const healthy: Finding[] = [
  { module: 'SYSTEM', testcase: 'Unspecified', tag: 'GLOBAL_VERSION', level: 'INFO', args: { version: '1' }, timestamp: 0 },
];

for (const target of await testDatabaseTargets()) {
  describe(`watches on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<ServiceSchema>;
    // A second handle on the same database: another service instance.
    let other: Database<ServiceSchema>;
    let pems: Pems;
    let hook: WebhookReceiver;
    let smtp: SmtpReceiver;
    before(async () => {
      ({ throwaway, database } = await migratedDatabase(target));
      other = await openDatabase<ServiceSchema>(throwaway.url);
      pems = await loopbackCertificate();
      hook = await startWebhookReceiver(pems);
      smtp = await startSmtpReceiver(pems);
    });
    after(async () => {
      await hook?.close();
      await smtp?.close();
      await other?.close();
      await database?.close();
      await settle();
      await throwaway?.drop();
    });

    test('two instances racing enqueue each due run once, and compare each finished run once', async () => {
      const start = new Date('2026-11-26T00:00:00Z');
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) {
        ids.push(
          await addWatch(database.db, database.dialect, {
            username: null,
            params: params(`race${i}.test`),
            schedule: 'every 1h',
            language: 'en',
            firstRunAt: start.toISOString(),
          }),
        );
      }
      const a = new Watcher({
        database,
        engine: fmt,
        settings: { publicUrl: 'https://dns.example', pollSeconds: 5, allowedNetworks: [] },
        log: silent,
      });
      const b = new Watcher({
        database: other,
        engine: fmt,
        settings: { publicUrl: 'https://dns.example', pollSeconds: 5, allowedNetworks: [] },
        log: silent,
      });
      const raced = await Promise.all([a.tick(start), b.tick(start), a.tick(start), b.tick(start)]);
      const enqueued = raced.flatMap((r) => r.enqueued);
      assert.equal(enqueued.length, 12, 'one run per due watch, whoever claimed it');
      assert.equal(new Set(enqueued).size, 12);
      const tests = await database.db
        .selectFrom('dh_test')
        .select(['hash_id', 'domain', 'priority'])
        .where('domain', 'like', 'race%')
        .execute();
      assert.equal(tests.length, 12, 'no watch ran twice');
      assert.ok(
        tests.every((t) => t.priority === 1),
        'watch runs wait behind batch (5) and interactive (10) tests',
      );
      const watches = await listWatches(database.db);
      assert.ok(
        watches.filter((w) => ids.includes(w.id)).every((w) => w.next_run_at === '2026-11-26T01:00:00.000Z' && w.pending_test !== null),
      );
      // Not due again within the hour, and not while a run is pending.
      const early = await Promise.all([a.tick(new Date('2026-11-26T00:30:00Z')), b.tick(new Date('2026-11-26T02:00:00Z'))]);
      assert.equal(early.flatMap((r) => r.enqueued).length, 0);

      for (const t of tests) await finishTest(database.db, t.hash_id, healthy);
      const compared = await Promise.all([a.tick(start), b.tick(start), a.tick(start)]);
      const runs = compared.flatMap((r) => r.compared);
      assert.equal(runs.length, 12, 'each finished run compared by exactly one instance');
      assert.equal(new Set(runs.map((r) => r.testId)).size, 12);
      assert.ok(
        runs.every((r) => r.previousTestId === null),
        'a first run is the baseline',
      );
      await database.db.deleteFrom('dh_watch').where('id', 'in', ids).execute();
    });

    test('a finding at ERROR that appears sends one signed webhook and one e-mail in the watch language; no change sends nothing', async () => {
      const secret = 'webhook-secret-of-the-test';
      const id = await addWatch(database.db, database.dialect, {
        username: null,
        params: params('alerted.test'),
        schedule: 'every 6h',
        language: 'sv',
        webhookUrl: hook.url,
        webhookSecret: secret,
        email: 'hostmaster@alerted.test',
        firstRunAt: '2026-11-26T00:00:00.000Z',
      });
      const smtpSettings = {
        host: '127.0.0.1',
        port: smtp.port,
        secure: false,
        user: smtp.user,
        password: smtp.password,
        from: 'dns-health@example.org',
      };
      // The CA is the receivers' self-signed certificate, given as a file as the configuration gives it.
      const caFile = caFileOf(pems);
      // The receivers are on loopback: the operator's list lets alerts reach them.
      const settings = { publicUrl: 'https://dns.example', pollSeconds: 5, caFile, smtp: smtpSettings, allowedNetworks: ['127.0.0.1'] };
      const trusting = new Watcher({ database, engine: fmt, settings, webhook: { firstDelayMs: 50 }, log: silent });

      const run = async (at: string, findings: Finding[]) => {
        const { enqueued } = await trusting.tick(new Date(at));
        assert.equal(enqueued.length, 1, `a run at ${at}`);
        await finishTest(database.db, enqueued[0] ?? '', findings);
        const { compared } = await trusting.tick(new Date(at));
        await trusting.idle();
        return { testId: enqueued[0] ?? '', compared };
      };
      await run('2026-11-26T00:00:00Z', [...healthy, noResponse('ns1.alerted.test/192.0.2.1')]);
      const second = await run('2026-11-26T06:00:00Z', [...healthy, noResponse('NS1.Alerted.TEST/192.0.2.1')]);
      assert.equal(hook.received.length, 0, 'the same finding with names cased otherwise is no change');
      assert.equal(smtp.mails.length, 0);
      hook.statuses.push(503);
      const third = await run('2026-11-26T12:00:00Z', [
        ...healthy,
        noResponse('ns1.alerted.test/192.0.2.1'),
        noResponse('ns2.alerted.test/192.0.2.2'),
      ]);

      assert.equal(hook.received.length, 2, 'one alert, delivered on the second attempt after a 503');
      const delivered = hook.received[1];
      assert.ok(delivered);
      const timestamp = String(delivered.headers['x-watch-timestamp']);
      const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${delivered.body}`).digest('hex')}`;
      assert.equal(delivered.headers['x-watch-signature'], expected, 'HMAC-SHA256 of "<timestamp>.<body>"');
      assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 60);
      const body = JSON.parse(delivered.body) as Record<string, unknown>;
      assert.equal(body.domain, 'alerted.test');
      assert.equal(body.watch_id, id);
      assert.equal(body.test_id, third.testId);
      assert.equal(body.previous_test_id, second.testId);
      assert.equal(body.report_url, `https://dns.example/result/${third.testId}`);
      assert.equal(body.compare_url, `https://dns.example/compare/${second.testId}/${third.testId}`);
      assert.equal(body.overall_result, 'error');
      assert.equal(body.worse, false);
      assert.deepEqual(body.disappeared, []);
      const appeared = body.appeared as { tag: string; level: string; args: { ns: string }; message: string }[];
      assert.equal(appeared.length, 1);
      assert.equal(appeared[0]?.tag, 'CN01_NO_RESPONSE_UDP');
      assert.equal(appeared[0]?.args.ns, 'ns2.alerted.test/192.0.2.2');
      assert.equal(
        appeared[0]?.message,
        'ns2.alerted.test/192.0.2.2 svarar inte över UDP på port 53. Kontrollera servern och eventuella brandväggar framför den.',
      );

      assert.equal(smtp.mails.length, 1, 'one e-mail');
      const mail = smtp.mails[0];
      assert.ok(mail);
      assert.equal(mail.secure, true, 'sent after STARTTLS');
      assert.equal(mail.user, smtp.user, 'authenticated');
      assert.deepEqual(mail.to, ['hostmaster@alerted.test']);
      const parsed = await simpleParser(mail.raw);
      assert.equal(parsed.subject, 'alerted.test: testresultatet har ändrats');
      assert.match(parsed.text ?? '', /ns2\.alerted\.test\/192\.0\.2\.2 svarar inte över UDP på port 53/);
      assert.match(parsed.text ?? '', new RegExp(`https://dns\\.example/compare/${second.testId}/${third.testId}`));

      // The server answers again: the finding goes away, which is an alert too.
      await run('2026-11-26T18:00:00Z', [...healthy, noResponse('ns1.alerted.test/192.0.2.1')]);
      assert.equal(hook.received.length, 3);
      const gone = JSON.parse(hook.received[2]?.body ?? '{}') as { appeared: unknown[]; disappeared: { args: { ns: string } }[] };
      assert.deepEqual(gone.appeared, []);
      assert.equal(gone.disappeared[0]?.args.ns, 'ns2.alerted.test/192.0.2.2');
      assert.equal(smtp.mails.length, 2);
    });

    test('findings of test cases a run stopped before are "not tested" in its alert, not "went away"', async () => {
      const id = await addWatch(database.db, database.dialect, {
        username: null,
        params: params('stopped.test'),
        schedule: 'every 1h',
        language: 'en',
        webhookUrl: hook.url,
        webhookSecret: 's',
        firstRunAt: '2026-11-21T00:00:00.000Z',
      });
      const started = (module: string, testcase: string): Finding => ({
        module,
        testcase,
        tag: 'TEST_CASE_START',
        level: 'DEBUG',
        args: { testcase },
        timestamp: 0,
      });
      const basic = [started('BASIC', 'Basic01'), started('BASIC', 'Basic02')];
      const fullRun = [...healthy, ...basic, started('CONNECTIVITY', 'Connectivity01'), noResponse('ns1.stopped.test/192.0.2.1')];
      // The servers stop answering: Basic02 finds no working server and the engine runs nothing after Basic.
      const stopped = [
        ...healthy,
        ...basic,
        {
          module: 'BASIC',
          testcase: 'Basic02',
          tag: 'B02_NO_WORKING_NS',
          level: 'CRITICAL',
          args: { domain: 'stopped.test' },
          timestamp: 1,
        } satisfies Finding,
      ];
      const received = hook.received.length;
      const watcher = new Watcher({
        database,
        engine: fmt,
        settings: { publicUrl: 'https://dns.example', pollSeconds: 5, caFile: caFileOf(pems), allowedNetworks: ['127.0.0.1'] },
        webhook: { firstDelayMs: 10 },
        log: silent,
      });
      for (const [at, findings] of [
        ['2026-11-21T00:00:00Z', fullRun],
        ['2026-11-21T01:00:00Z', stopped],
      ] as const) {
        const { enqueued } = await watcher.tick(new Date(at));
        assert.equal(enqueued.length, 1);
        await finishTest(database.db, enqueued[0] ?? '', findings);
        await watcher.tick(new Date(at));
        await watcher.idle();
      }
      assert.equal(hook.received.length, received + 1, 'one alert: the result got worse');
      const body = JSON.parse(hook.received.at(-1)?.body ?? '{}') as Record<string, { tag: string }[]>;
      assert.deepEqual(
        body.appeared?.map((f) => f.tag),
        ['B02_NO_WORKING_NS'],
      );
      assert.deepEqual(body.disappeared, [], 'Connectivity01 did not run, so its finding did not go away');
      assert.deepEqual(
        body.not_tested?.map((f) => f.tag),
        ['CN01_NO_RESPONSE_UDP'],
      );
      await database.db.deleteFrom('dh_watch').where('id', '=', id).execute();
    });

    test('an alert whose webhook name resolves to loopback when it is sent, or whose stored address is loopback, connects nowhere', async () => {
      const listener = await connectionCounter();
      try {
        // Written straight to the database: accepted when its name pointed elsewhere (DNS rebinding), or before the rule.
        const urls = [
          `https://localhost:${listener.port}/hook`,
          `https://2130706433:${listener.port}/hook`,
          `https://[::ffff:7f00:1]:${listener.port}/hook`,
        ];
        const ids: number[] = [];
        for (const [i, url] of urls.entries()) {
          ids.push(
            await addWatch(database.db, database.dialect, {
              username: null,
              params: params(`rebound${i}.test`),
              schedule: 'every 1h',
              language: 'en',
              webhookUrl: url,
              webhookSecret: 's',
              firstRunAt: '2026-11-20T00:00:00.000Z',
            }),
          );
        }
        const lines: string[] = [];
        const watcher = new Watcher({
          database,
          engine: fmt,
          settings: { publicUrl: 'https://dns.example', pollSeconds: 5, allowedNetworks: [] },
          webhook: { firstDelayMs: 10 },
          log: (line) => lines.push(line),
        });
        for (const [at, findings] of [
          ['2026-11-20T00:00:00Z', healthy],
          ['2026-11-20T01:00:00Z', [...healthy, noResponse('ns1.rebound.test/192.0.2.1')]],
        ] as const) {
          const { enqueued } = await watcher.tick(new Date(at));
          assert.equal(enqueued.length, urls.length);
          for (const testId of enqueued) await finishTest(database.db, testId, findings);
          await watcher.tick(new Date(at));
          await watcher.idle();
        }
        const refused = lines.filter((line) =>
          /webhook of watch \d+ not delivered after [01] attempt\(s\): .*loopback, private or reserved range not allowed for watch alerts/.test(
            line,
          ),
        );
        assert.equal(refused.length, urls.length, lines.join('\n'));
        assert.equal(listener.connections, 0, 'the listener on loopback saw no connection');
        await database.db.deleteFrom('dh_watch').where('id', 'in', ids).execute();
      } finally {
        await listener.close();
      }
    });
  });
}

/** The receivers' self-signed certificate as a CA file, as the configuration gives it. */
function caFileOf(pems: Pems): string {
  const file = join(mkdtempSync(join(tmpdir(), 'watch-ca-')), 'ca.pem');
  writeFileSync(file, pems.cert);
  return file;
}

test('webhook delivery: a 4xx other than 429 is not retried; 5xx and 429 are, with doubling waits, until the attempts run out', async () => {
  const pems = await loopbackCertificate();
  const hook = await startWebhookReceiver(pems);
  try {
    const options = { ca: pems.cert, attempts: 4, firstDelayMs: 40, targets: loopbackAllowed };
    hook.statuses.push(404);
    assert.deepEqual(await deliverWebhook(hook.url, 's', { a: 1 }, options), { delivered: false, attempts: 1, reason: 'HTTP 404' });
    hook.statuses.push(503, 429, 502, 500);
    const started = Date.now();
    assert.deepEqual(await deliverWebhook(hook.url, 's', { a: 1 }, options), { delivered: false, attempts: 4, reason: 'HTTP 500' });
    assert.ok(Date.now() - started >= 40 + 80 + 160, 'waits 40, 80 and 160 ms between the attempts');
    assert.equal(hook.received.length, 5);
    // Without the receiver's CA the certificate is not trusted: never sent in the clear or unchecked.
    const untrusted = await deliverWebhook(hook.url, 's', { a: 1 }, { attempts: 1, targets: loopbackAllowed });
    assert.equal(untrusted.delivered, false);
    assert.match(untrusted.delivered ? '' : untrusted.reason, /self-signed|certificate/i);
    assert.equal(hook.received.length, 5);
  } finally {
    await hook.close();
  }
});

test('the e-mail speaks each of the eight languages: its frame from the web texts, the findings from the catalogue', () => {
  const finding = noResponse('ns2.example.test/192.0.2.2');
  for (const language of LANGUAGES) {
    const texts = JSON.parse(readFileSync(new URL(`../src/shared/locales/${language}.json`, import.meta.url), 'utf8')) as Record<
      string,
      string
    >;
    const message = formatFinding(finding, language);
    const change = {
      overallBefore: 'ok' as const,
      overallAfter: 'error' as const,
      worse: true,
      appeared: [
        { module: finding.module, testcase: finding.testcase, tag: finding.tag, level: 'ERROR' as const, args: finding.args, message },
      ],
      disappeared: [],
      notTested: [],
    };
    const watch = {
      id: 1,
      username: null,
      domain: 'example.test',
      params: '{}',
      schedule: 'every 6h',
      language,
      webhook_url: null,
      webhook_secret: null,
      email: 'a@example.test',
      created_at: '',
      next_run_at: '',
      pending_test: null,
      last_test: null,
    };
    const mail = emailMessage({ watch, testId: 'b'.repeat(16), previousTestId: 'a'.repeat(16), change, publicUrl: 'https://dns.example' });
    assert.equal(mail.subject, texts.alert_subject?.replace('{domain}', 'example.test'), language);
    assert.ok(mail.text.includes(message), `${language}: ${mail.text}`);
    assert.ok(mail.text.includes(texts.overall_error ?? '?'), language);
    if (language !== 'en') assert.notEqual(message, formatFinding(finding, 'en'), `${language} has its own text for the finding`);
  }
});
