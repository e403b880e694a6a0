// `npm run demo` as a reader meets it: it says what it does from the first second, runs a few tests, then keeps
// the lab, the domain health service and its web interface up, printing what to try; the printed addresses and
// commands work (a batch, dnscheck with the lab profile, the command that makes the demo's watch alert); Ctrl-C
// stops it all.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { labUnavailableReason } from '../src/index.ts';

const root = resolve(import.meta.dirname, '../../..');
const skip = (await labUnavailableReason()) ?? false;
if (skip !== false) console.log(`# skipping the demo test: ${skip}`);

/** Resolves with the output so far once it matches, or rejects when the process ends or time runs out. */
function waitForOutput(output: () => string, pattern: RegExp, exited: Promise<unknown>, timeoutMs: number): Promise<string> {
  return new Promise((done, fail) => {
    const timer = setInterval(() => {
      if (pattern.test(output())) {
        clearInterval(timer);
        done(output());
      }
    }, 200);
    void exited.then(() => {
      clearInterval(timer);
      if (pattern.test(output())) done(output());
      else fail(new Error(`the demo ended before printing ${pattern}:\n${output()}`));
    });
    setTimeout(() => {
      clearInterval(timer);
      fail(new Error(`no ${pattern} within ${timeoutMs / 1000} s:\n${output()}`));
    }, timeoutMs).unref();
  });
}

/** A TCP port free on the host's loopback just now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** The lines of one domain's block in the demo's output (its heading to the next blank line). */
function blockOf(printed: string, domain: string): string {
  const from = printed.indexOf(`\n${domain} (through the service`);
  assert.ok(from >= 0, `the demo shows ${domain}`);
  return printed.slice(from + 1, printed.indexOf('\n\n', from + 1));
}

test(
  'npm run demo keeps the lab and the service running, its printed URLs and commands work, and Ctrl-C stops it',
  { skip, timeout: 900_000 },
  async () => {
    const port = await freePort();
    const started = Date.now();
    const demo = spawn(process.execPath, [resolve(root, 'packages/lab/bin/lab.ts'), 'demo', '--port', String(port)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let firstOutputAfterMs: number | undefined;
    const take = (chunk: Buffer): void => {
      firstOutputAfterMs ??= Date.now() - started;
      output += chunk.toString();
    };
    demo.stdout.on('data', take);
    demo.stderr.on('data', take);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      demo.once('exit', (code, signal) => done({ code, signal })),
    );
    try {
      const printed = await waitForOutput(() => output, /The lab keeps running until Ctrl-C[\s\S]*npm run lab -- list/, exited, 600_000);
      // A first start builds the catalogue's zones for minutes on a slow machine: the demo says what it is doing from the start.
      assert.ok((firstOutputAfterMs ?? Infinity) < 15_000, `the demo's first line came after ${firstOutputAfterMs} ms`);
      assert.match(printed, /^Starting a lab with the whole catalogue: \d+ scenarios/);
      const labUp = printed.indexOf('\nLab: ');
      const startUp = printed.slice(0, labUp);
      assert.match(
        startUp,
        /^ +\d+ s {2}(?:zones built earlier reused|no zones built earlier for this world)/m,
        'it says whether the zones are built or reused',
      );
      assert.match(startUp, /^ +\d+ s {2}starting the name servers: \d+ servers/m, 'and when the name servers start');
      assert.match(printed.slice(labUp), /Starting the domain health service inside the lab/);
      assert.match(printed, /^ {2}\d+\/\d+ tests finished \(/m, "the tests' progress is shown as they finish");
      assert.match(printed, /\(through the service, test [0-9a-f]{16}\)/, 'tests went through the service');

      // The flagship healthy domain is clean under the lab profile: the lab's root and test. are signed, its servers spread.
      const healthy = blockOf(printed, 'healthy.test.');
      assert.doesNotMatch(healthy, /WARNING|ERROR|CRITICAL/, healthy);
      // The lab's documentation-range addresses are said up front, and the lab profile keeps them out of the findings.
      assert.match(printed, /Every lab address is in a documentation range[\s\S]*"lab" profile/);
      assert.match(printed, /Submitted \d+ tests with the lab profile/);
      assert.doesNotMatch(printed, /^ {2}ERROR Address01:/m, "no report leads with the lab's own addresses");

      // The web interface and the JSON-RPC API answer where the demo says, on the port asked for.
      const web = /^Web interface: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(printed)?.[1];
      assert.equal(web, `http://127.0.0.1:${port}/`, 'the web interface is on --port');
      const page = await fetch(web);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const testId = /test ([0-9a-f]{16})\)/.exec(printed)?.[1] ?? '';
      const report = new RegExp(`(http://127\\.0\\.0\\.1:\\d+/result/${testId})$`, 'm').exec(printed)?.[1];
      assert.ok(report, "each test's report address is printed");
      assert.equal((await fetch(report)).status, 200, 'a printed report page answers');
      const rpc = /^JSON-RPC API: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(printed)?.[1];
      assert.ok(rpc, 'the JSON-RPC address is printed');
      const progress = (await (
        await fetch(rpc, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_progress', params: { test_id: testId } }),
        })
      ).json()) as { result?: number };
      assert.equal(progress.result, 100);

      // A printed curl call works as printed (through a shell, quotes and all).
      const curlLine =
        printed
          .split('\n')
          .find((line) => line.includes('"method":"get_data_from_parent_zone"'))
          ?.trim() ?? '';
      assert.match(curlLine, /^curl /);
      const curl = spawnSync('sh', ['-c', curlLine], { encoding: 'utf8', timeout: 60_000 });
      const parent = JSON.parse(curl.stdout) as { result?: { ns_list: { ns: string }[] } };
      assert.ok((parent.result?.ns_list.length ?? 0) > 0, `get_data_from_parent_zone answers: ${curl.stdout}${curl.stderr}`);

      // add_api_user is on in the demo: its printed batch call works as printed.
      const batchLine =
        printed
          .split('\n')
          .find((line) => line.includes('"method":"add_batch_job"'))
          ?.trim() ?? '';
      assert.match(batchLine, /^curl /);
      const batch = JSON.parse(spawnSync('sh', ['-c', batchLine], { encoding: 'utf8', timeout: 60_000 }).stdout) as {
        result?: unknown;
        error?: unknown;
      };
      assert.match(String(batch.result), /^\d+$/, `add_batch_job answers a batch id: ${JSON.stringify(batch)}`);

      // The dnscheck command printed for healthy.test, with the lab profile in the repository, finds what the service found.
      const healthyLine =
        printed
          .split('\n')
          .find((line) => line.includes('dnscheck') && line.includes('nsenter') && / healthy\.test /.test(line))
          ?.trim() ?? '';
      assert.match(healthyLine, /--profile packages\/lab\/lab-profile\.json$/);
      const healthyRun = spawnSync('sh', ['-c', `${healthyLine} --json --no-progress --level WARNING`], {
        cwd: root,
        encoding: 'utf8',
        timeout: 180_000,
      });
      assert.equal(healthyRun.status, 0, healthyRun.stderr.slice(-500));
      assert.deepEqual(JSON.parse(healthyRun.stdout), [], 'no warning or worse for healthy.test');

      // So does a printed dnscheck command, inside the lab.
      const dnscheckLine =
        printed
          .split('\n')
          .find((line) => line.includes('dnscheck') && line.includes('nsenter') && line.includes('wrongds.test'))
          ?.trim() ?? '';
      const dnscheck = spawnSync('sh', ['-c', `${dnscheckLine} --json --no-progress`], { cwd: root, encoding: 'utf8', timeout: 180_000 });
      assert.equal(dnscheck.status, 4, `dnscheck's exit code for a worst finding at ERROR; ${dnscheck.stderr.slice(-500)}`);
      const findings = JSON.parse(dnscheck.stdout) as { testcase: string; level: string }[];
      assert.ok(
        findings.some((f) => f.testcase.toUpperCase() === 'DNSSEC02' && f.level === 'ERROR'),
        'dnscheck finds the DS that matches no key of wrongds.test',
      );

      // The demo's watch alerts its own receiver once the printed command silences a server of the watched domain.
      const silence = /To see an alert arrive[^\n]*\n {2}(nsenter [^\n]+ip addr del[^\n]+)$/m.exec(printed)?.[1];
      assert.ok(silence, 'the command that silences a server is printed');
      const silenced = spawnSync('sh', ['-c', silence], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(silenced.status, 0, silenced.stderr);
      const alerted = await waitForOutput(
        () => output,
        /\nAlert from the watch on healthy\.test: \S+ -> \S+ \(http:\/\/127\.0\.0\.1:\d+\/compare\/[0-9a-f]{16}\/[0-9a-f]{16}\)\n {2}appeared: /,
        exited,
        300_000,
      );
      assert.match(alerted.slice(alerted.indexOf('\nAlert from the watch')), /appeared: (?:WARNING|ERROR|CRITICAL) /);

      // Still running after all that; Ctrl-C stops it cleanly and takes the lab with it.
      assert.equal(demo.exitCode, null);
      const pid = /nsenter --target (\d+) /.exec(printed)?.[1];
      assert.ok(pid !== undefined && existsSync(`/proc/${pid}`), 'the lab is running');
      demo.kill('SIGINT');
      const { code, signal } = await Promise.race([
        exited,
        new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`the demo did not stop within 30 s:\n${output}`)), 30_000).unref()),
      ]);
      assert.deepEqual({ code, signal }, { code: 0, signal: null });
      assert.match(output, /Stopped: the lab/);
      assert.equal(existsSync(`/proc/${pid}`), false, 'the lab is gone');
      await assert.rejects(fetch(web), 'the web interface is gone');
    } finally {
      if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGKILL');
    }
  },
);
