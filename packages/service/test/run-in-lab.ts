// Runs a node:test file inside the DNS lab through the lab's CLI (the service may not import the
// lab package) and reports its outcome; skips with the lab's reason when this machine has no lab.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const labCli = fileURLToPath(new URL('../../lab/bin/lab.ts', import.meta.url));

/** Returns the inner run's TAP output once every one of its tests passed. */
export async function runInLab(t: TestContext, scenarios: string[], script: string): Promise<string | undefined> {
  const child = spawn(
    process.execPath,
    [labCli, 'run', scenarios.join(','), '--', process.execPath, '--test', '--test-reporter=tap', script],
    {
      cwd: root,
      // Without this the inner test run would report to us in node:test's private child format.
      env: Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_TEST_CONTEXT')),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const unavailable = /^lab: (.*(?:unavailable|not available|requires|needs|cannot).*)$/im.exec(stderr);
  if (code === 2 && unavailable) {
    t.skip(`DNS lab not available: ${unavailable[1]}`);
    return undefined;
  }
  const failures = stdout.split('\n').filter((line) => /^\s*not ok /.test(line));
  assert.equal(code, 0, `inside the lab:\n${failures.join('\n')}\n${stdout.slice(-4000)}\n${stderr.slice(-2000)}`);
  return stdout;
}
