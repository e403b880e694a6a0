// Port 53 intercepted: in the lab's root-intercepted scenario a company resolver and a captive portal
// stand in for the root (root hints that give a root server's name their address). Both the CLI and
// the service's report must say so plainly (ROOT_SERVERS_INTERCEPTED, CRITICAL, with the answer that
// gave it away) before anything else, without stating what the stand-in answered as facts about the
// domain, and must not say it when the lab's real root answers.
// Lives outside packages/ because it joins the lab with the engine's CLI and the service.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { labUnavailableReason, startLab, type Lab } from '@app/lab';

const cli = resolve(import.meta.dirname, '../packages/engine/bin/dnscheck.js');
const serviceBin = resolve(import.meta.dirname, '../packages/service/bin/dns-service.ts');
const plainly =
  /cannot come from the real root .*something on this network, such as a captive portal, a firewall or a company resolver, answers DNS queries in their place/;

interface Finding {
  tag: string;
  level: string;
  testcase?: string;
  args: Record<string, unknown>;
  message?: string;
}

const skip = (await labUnavailableReason()) ?? false;

describe('an intercepted root in the lab', { skip }, () => {
  let lab: Lab;
  let dir: string;
  /** Root hints naming a root server at the stand-in's address. */
  const hints: Record<'resolver' | 'portal', string> = { resolver: '', portal: '' };
  before(async () => {
    lab = await startLab(['root-intercepted']);
    dir = mkdtempSync(join(tmpdir(), 'root-intercepted-'));
    for (const [name, address] of [
      ['resolver', '203.0.113.211'],
      ['portal', '203.0.113.212'],
    ] as const) {
      hints[name] = join(dir, `${name}.hints`);
      writeFileSync(hints[name], `.  3600000 NS a.root-servers.test.\na.root-servers.test. 3600000 A ${address}\n`);
    }
  });
  after(async () => {
    await lab?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const run = async (hintsPath: string, format: string[]) => {
    const result = await lab.exec(process.execPath, [cli, 'intercept.test', '--hints', hintsPath, '--no-progress', ...format], {
      timeoutMs: 120_000,
    });
    return result.stdout;
  };
  const findings = async (hintsPath: string) => JSON.parse(await run(hintsPath, ['--json'])) as Finding[];

  for (const [standIn, giveaway] of [
    ['resolver', /→ NOERROR, flags qr ra,/],
    ['portal', /→ NXDOMAIN, flags qr,/],
  ] as const) {
    test(`the CLI says plainly that a ${standIn} answers for the root, naming it and the answer that gave it away`, async () => {
      const all = await findings(hints[standIn]);
      const intercepted = all.filter((f) => f.tag === 'ROOT_SERVERS_INTERCEPTED');
      assert.equal(intercepted.length, 1, JSON.stringify(all.map((f) => f.tag)));
      assert.equal(intercepted[0].level, 'CRITICAL');
      assert.equal(intercepted[0].testcase, 'Basic01');
      assert.equal(intercepted[0].args.ns_list, `a.root-servers.test/${standIn === 'resolver' ? '203.0.113.211' : '203.0.113.212'}`);
      assert.match(String(intercepted[0].args.answer), giveaway);
      // What the walk saw through the stand-in is not stated as a fact about the domain (no "does not
      // exist as a zone" ERROR above it): the finding comes first and the run stops there.
      assert.deepEqual(
        all.filter((f) => !['DEBUG', 'DEBUG2', 'DEBUG3', 'INFO'].includes(f.level)).map((f) => `${f.level} ${f.tag}`),
        ['CRITICAL ROOT_SERVERS_INTERCEPTED', 'CRITICAL CANNOT_CONTINUE'],
      );
      assert.deepEqual(
        all.filter((f) => f.tag.startsWith('B01_')).map((f) => f.tag),
        [],
      );
      const text = await run(hints[standIn], ['--level', 'CRITICAL']);
      assert.match(text, /^CRITICAL\s+The answers given as the root servers \(a\.root-servers\.test\/203\.0\.113\.21[12]\)/m);
      assert.match(text, plainly);
    });
  }

  test('through the real root the same domain is healthy, and nothing is said about interception', async () => {
    const all = await findings(lab.hintsPath);
    assert.deepEqual(
      all.filter((f) => f.tag.startsWith('ROOT_SERVERS_')),
      [],
    );
    assert.ok(
      all.some((f) => f.tag === 'B01_CHILD_FOUND'),
      'the delegation is found',
    );
    assert.ok(
      all.some((f) => f.tag === 'B02_AUTH_RESPONSE_SOA'),
      'its servers answer',
    );
  });

  test(
    "the service's report says it too: a test run by an agent resolving through the company resolver",
    { timeout: 180_000 },
    async () => {
      const service = lab.spawn(process.execPath, [serviceBin, 'serve', '--with-agent', '--listen', '127.0.0.1:5000'], {
        env: { DNS_SERVICE_DATABASE_URL: `sqlite:${join(dir, 'service.sqlite')}`, DNS_ROOT_HINTS: hints.resolver },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        for await (const line of createInterface({ input: service.stdout! })) if (/JSON-RPC API on /.test(line)) break;
        const url = `http://127.0.0.1:${await lab.forward(5000)}/`;
        const call = async (method: string, params: unknown): Promise<unknown> => {
          const reply = (await (
            await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
            })
          ).json()) as { result?: unknown; error?: unknown };
          assert.equal(reply.error, undefined, `${method}: ${JSON.stringify(reply.error)}`);
          return reply.result;
        };
        const id = (await call('start_domain_test', { domain: 'intercept.test' })) as string;
        const deadline = Date.now() + 150_000;
        while ((await call('test_progress', { test_id: id })) !== 100) {
          assert.ok(Date.now() < deadline, 'the test did not finish in time');
          await delay(250);
        }
        // The reference's results (message, level, test case) and our report (with tags and arguments).
        const results = ((await call('get_test_results', { id, language: 'en' })) as { results: Finding[] }).results;
        const said = results.filter((f) => plainly.test(f.message ?? ''));
        assert.equal(said.length, 1, JSON.stringify(results.map((f) => f.message)));
        assert.deepEqual([said[0]?.level, said[0]?.testcase], ['CRITICAL', 'Basic01']);
        assert.match(
          said[0]?.message ?? '',
          /^The answers given as the root servers \(a\.root-servers\.test\/203\.0\.113\.211\) cannot come from the real root/,
        );
        const stated = results.filter((f) => !['INFO', 'NOTICE'].includes(f.level));
        assert.equal(stated[0], said[0], `the interception leads the report: ${JSON.stringify(stated.map((f) => f.message))}`);
        assert.ok(
          !results.some((f) => /does not exist as a zone|The parent zone is|No parent zone could be found/.test(f.message ?? '')),
          JSON.stringify(results.map((f) => f.message)),
        );
        const report = (await call('get_test_report', { test_id: id, language: 'en' })) as { findings: Finding[]; overall_result: string };
        assert.deepEqual(
          report.findings.filter((f) => f.tag === 'ROOT_SERVERS_INTERCEPTED').map((f) => f.level),
          ['CRITICAL'],
        );
        assert.equal(report.overall_result, 'critical');
      } finally {
        service.kill('SIGTERM');
        if (service.exitCode === null) await once(service, 'exit');
      }
    },
  );
});
