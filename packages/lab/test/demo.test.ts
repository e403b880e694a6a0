// `npm run demo` as a reader meets it: it runs a few tests, then keeps the lab, the domain health service and
// its web interface up, printing what to try; the printed addresses and commands work; Ctrl-C stops it all.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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

test('npm run demo keeps the lab and the service running, its printed URLs and commands work, and Ctrl-C stops it', { skip, timeout: 600_000 }, async () => {
  const demo = spawn(process.execPath, [resolve(root, 'packages/lab/bin/lab.ts'), 'demo'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  demo.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  demo.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => demo.once('exit', (code, signal) => done({ code, signal })));
  try {
    const printed = await waitForOutput(() => output, /The lab keeps running until Ctrl-C[\s\S]*npm run lab -- list/, exited, 480_000);
    assert.match(printed, /\(through the service, test [0-9a-f]{16}\)/, 'tests went through the service');
    // The lab's documentation-range addresses are said up front, and the lab profile keeps them out of the findings.
    assert.match(printed, /Every lab address is in a documentation range[\s\S]*"lab" profile/);
    assert.match(printed, /Submitted \d+ tests with the lab profile/);
    assert.doesNotMatch(printed, /^ {2}ERROR Address01:/m, 'no report leads with the lab\'s own addresses');

    // The web interface and the JSON-RPC API answer where the demo says.
    const web = /^Web interface: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(printed)?.[1];
    assert.ok(web, 'the web interface address is printed');
    const page = await fetch(web);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const testId = /test ([0-9a-f]{16})\)/.exec(printed)?.[1] ?? '';
    const report = new RegExp(`(http://127\\.0\\.0\\.1:\\d+/result/${testId})$`, 'm').exec(printed)?.[1];
    assert.ok(report, 'each test\'s report address is printed');
    assert.equal((await fetch(report)).status, 200, 'a printed report page answers');
    const rpc = /^JSON-RPC API: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(printed)?.[1];
    assert.ok(rpc, 'the JSON-RPC address is printed');
    const progress = (await (
      await fetch(rpc, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_progress', params: { test_id: testId } }) })
    ).json()) as { result?: number };
    assert.equal(progress.result, 100);

    // A printed curl call works as printed (through a shell, quotes and all).
    const curlLine = printed.split('\n').find((line) => line.includes('"method":"get_data_from_parent_zone"'))?.trim() ?? '';
    assert.match(curlLine, /^curl /);
    const curl = spawnSync('sh', ['-c', curlLine], { encoding: 'utf8', timeout: 60_000 });
    const parent = JSON.parse(curl.stdout) as { result?: { ns_list: { ns: string }[] } };
    assert.ok((parent.result?.ns_list.length ?? 0) > 0, `get_data_from_parent_zone answers: ${curl.stdout}${curl.stderr}`);

    // So does a printed dnscheck command, inside the lab.
    const dnscheckLine = printed.split('\n').find((line) => line.includes('dnscheck') && line.includes('nsenter') && line.includes('wrongds.test'))?.trim() ?? '';
    const dnscheck = spawnSync('sh', ['-c', `${dnscheckLine} --json --no-progress`], { cwd: root, encoding: 'utf8', timeout: 180_000 });
    assert.equal(dnscheck.status, 4, `dnscheck's exit code for a worst finding at ERROR; ${dnscheck.stderr.slice(-500)}`);
    const findings = JSON.parse(dnscheck.stdout) as { testcase: string; level: string }[];
    assert.ok(findings.some((f) => f.testcase.toUpperCase() === 'DNSSEC02' && f.level === 'ERROR'), 'dnscheck finds the DS that matches no key of wrongds.test');

    // Still running after all that; Ctrl-C stops it cleanly and takes the lab with it.
    assert.equal(demo.exitCode, null);
    const pid = /nsenter --target (\d+) /.exec(printed)?.[1];
    assert.ok(pid !== undefined && existsSync(`/proc/${pid}`), 'the lab is running');
    demo.kill('SIGINT');
    const { code, signal } = await Promise.race([exited, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`the demo did not stop within 30 s:\n${output}`)), 30_000).unref())]);
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
    assert.match(output, /Stopped: the lab/);
    assert.equal(existsSync(`/proc/${pid}`), false, 'the lab is gone');
    await assert.rejects(fetch(web), 'the web interface is gone');
  } finally {
    if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGKILL');
  }
});
