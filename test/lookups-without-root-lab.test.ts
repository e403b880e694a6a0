// The service's live lookups (get_data_from_parent_zone, get_host_by_name and their newer names) on a
// network without DNS: thirteen root servers that never answer (test/scenarios/root-silent.yaml), as
// behind a firewall that drops port 53, and a captive portal answering in the root's place. The answer
// must come within about ten seconds and say why nothing was found, with the finding a test would
// report, instead of an empty delegation after a walk through every silent server (104 s).
// Lives outside packages/ because it joins the lab with the service.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { labUnavailableReason, startLab, type Lab } from '@app/lab';

const serviceBin = resolve(import.meta.dirname, '../packages/service/bin/dns-service.ts');
const silentRoots = 'abcdefghijklm'
  .split('')
  .map((letter, i) => ({ name: `${letter}.silent-root.test.`, address: `203.0.113.${221 + i}` }));

interface Reply {
  result?: unknown;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

const skip = (await labUnavailableReason()) ?? false;

describe('lookups when no root server answers, or something answers in its place', { skip }, () => {
  let lab: Lab;
  let dir: string;
  let port = 5100;
  before(async () => {
    lab = await startLab([resolve(import.meta.dirname, 'scenarios/root-silent.yaml'), 'root-intercepted']);
    dir = mkdtempSync(join(tmpdir(), 'lookups-without-root-'));
    writeFileSync(
      join(dir, 'silent.hints'),
      silentRoots.flatMap((r) => [`. 3600000 NS ${r.name}`, `${r.name} 3600000 A ${r.address}`]).join('\n') + '\n',
    );
    writeFileSync(join(dir, 'portal.hints'), '.  3600000 NS a.root-servers.test.\na.root-servers.test. 3600000 A 203.0.113.212\n');
  });
  after(async () => {
    await lab?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** A service inside the lab resolving from `hints`, and a JSON-RPC caller for it. */
  const withService = async (
    hints: string,
    use: (call: (method: string, params: unknown) => Promise<Reply>) => Promise<void>,
  ): Promise<void> => {
    port++;
    const service = lab.spawn(process.execPath, [serviceBin, 'serve', '--listen', `127.0.0.1:${port}`], {
      env: { DNS_SERVICE_DATABASE_URL: `sqlite:${join(dir, `service-${port}.sqlite`)}`, DNS_ROOT_HINTS: hints },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      for await (const line of createInterface({ input: service.stdout! })) if (/JSON-RPC API on /.test(line)) break;
      const url = `http://127.0.0.1:${await lab.forward(port)}/`;
      await use(
        async (method, params) =>
          (await (
            await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
            })
          ).json()) as Reply,
      );
    } finally {
      service.kill('SIGTERM');
      if (service.exitCode === null) await once(service, 'exit');
    }
  };

  const timed = async <T>(run: () => Promise<T>): Promise<{ value: T; seconds: number }> => {
    const started = performance.now();
    const value = await run();
    return { value, seconds: (performance.now() - started) / 1000 };
  };

  test(
    'silent root servers: get_data_from_parent_zone fails within about 10 s, saying no root server answered',
    { timeout: 120_000 },
    async (t) => {
      await withService(join(dir, 'silent.hints'), async (call) => {
        const { value: reply, seconds } = await timed(() =>
          call('get_data_from_parent_zone', { domain: 'intercept.test', language: 'fr' }),
        );
        t.diagnostic(`get_data_from_parent_zone answered after ${seconds.toFixed(1)} s`);
        assert.ok(seconds < 12, `answered after ${seconds.toFixed(1)} s`);
        assert.equal(reply.result, undefined, 'no empty delegation is given');
        assert.equal(reply.error?.code, -32603);
        assert.equal(reply.error?.message, 'DNS lookup failed');
        const data = reply.error?.data ?? {};
        assert.deepEqual([data.lookup, data.tag, data.level], ['intercept.test', 'ROOT_SERVERS_UNREACHABLE', 'CRITICAL']);
        assert.deepEqual(String(data.ns_list).split(';').sort(), silentRoots.map((r) => `${r.name.slice(0, -1)}/${r.address}`).sort());
        // The finding's own text, in the language the call asked for.
        assert.match(String(data.reason), /^Aucun serveur racine n’a répondu \(/);
        for (const [method, params] of [
          ['lookup_delegation_data', { domain: 'intercept.test' }],
          ['get_host_by_name', { hostname: 'www.intercept.test' }],
          ['lookup_address_records', { hostname: 'www.intercept.test' }],
        ] as const) {
          const again = await timed(() => call(method, params));
          assert.ok(again.seconds < 12, `${method} answered after ${again.seconds.toFixed(1)} s`);
          assert.equal(again.value.error?.data?.tag, 'ROOT_SERVERS_UNREACHABLE', `${method}: ${JSON.stringify(again.value)}`);
          assert.match(String(again.value.error?.data?.reason), /^No root server answered/);
        }
      });
    },
  );

  test(
    "a captive portal in the root servers' place: the lookup says DNS is intercepted, not that the domain has no delegation",
    { timeout: 60_000 },
    async () => {
      await withService(join(dir, 'portal.hints'), async (call) => {
        const { value: reply, seconds } = await timed(() => call('get_data_from_parent_zone', { domain: 'intercept.test' }));
        assert.ok(seconds < 12, `answered after ${seconds.toFixed(1)} s`);
        assert.equal(reply.error?.code, -32603, JSON.stringify(reply));
        const data = reply.error?.data ?? {};
        assert.deepEqual(
          [data.tag, data.level, data.ns_list],
          ['ROOT_SERVERS_INTERCEPTED', 'CRITICAL', 'a.root-servers.test/203.0.113.212'],
        );
        assert.match(String(data.answer), /→ NXDOMAIN, flags qr,/);
        assert.match(String(data.reason), /cannot come from the real root/);
      });
    },
  );

  test("through the lab's real root the same lookups answer as before", { timeout: 60_000 }, async () => {
    await withService(lab.hintsPath, async (call) => {
      const reply = await call('get_data_from_parent_zone', { domain: 'intercept.test' });
      assert.equal(reply.error, undefined, JSON.stringify(reply.error));
      const { ns_list, ds_list } = reply.result as { ns_list: { ns: string; ip: string }[]; ds_list: unknown[] };
      assert.deepEqual(ns_list.map((n) => `${n.ns}/${n.ip}`).sort(), [
        'ns1.intercept.test/203.0.113.213',
        'ns2.intercept.test/203.0.113.214',
      ]);
      assert.deepEqual(ds_list, []);
      assert.deepEqual((await call('get_host_by_name', { hostname: 'www.intercept.test' })).result, [
        { 'www.intercept.test': '203.0.113.80' },
      ]);
    });
  });
});
