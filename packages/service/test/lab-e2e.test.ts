// End to end in the DNS lab: the lab's CLI starts real name servers in a private network namespace
// and runs lab/e2e-inside.ts there (the service may not import the lab package, so it runs its CLI).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const labCli = fileURLToPath(new URL('../../lab/bin/lab.ts', import.meta.url));
const inside = fileURLToPath(new URL('./lab/e2e-inside.ts', import.meta.url));

test('in the lab: lookups, a test followed to translated results and history, and a batch', { timeout: 240_000 }, async (t) => {
  const child = spawn(process.execPath, [labCli, 'run', 'single-nameserver,healthy-signed', '--', process.execPath, '--test', '--test-reporter=tap', inside], {
    cwd: root,
    // Without this the inner test run would report to us in node:test's private child format.
    env: Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_TEST_CONTEXT')),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const unavailable = /^lab: (.*(?:unavailable|not available|requires|needs|cannot).*)$/im.exec(stderr);
  if (code === 2 && unavailable) {
    t.skip(`DNS lab not available: ${unavailable[1]}`);
    return;
  }
  const failures = stdout.split('\n').filter((line) => /^\s*not ok /.test(line));
  assert.equal(code, 0, `inside the lab:\n${failures.join('\n')}\n${stdout.slice(-4000)}\n${stderr.slice(-2000)}`);
  assert.match(stdout, /# pass 5/);
});
