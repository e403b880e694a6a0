// The test command (scripts/run-tests.ts) ends after a test times out, even where that test left a process running,
// rather than waiting on that test file's process until CI's own limit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..');

test('a timed-out test that leaves a child process running does not hold the run', { timeout: 60_000 }, async () => {
  const run = spawn(process.execPath, ['scripts/run-tests.ts', 'test/fixtures/test-runner/outlived-by-child.ts'], {
    cwd: root,
    // Without it the inner runner would take itself for a test file of this run and report to it.
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | 'held'>((resolve) => {
    const limit = setTimeout(() => resolve('held'), 20_000);
    run.once('exit', (exitCode) => {
      clearTimeout(limit);
      resolve(exitCode ?? -1);
    });
  });
  const child = Number(/child (\d+)/.exec(output)?.[1]);
  try {
    assert.notEqual(code, 'held', `the run was still going 20 s after it started:\n${output}`);
    assert.equal(code, 1, 'the timed-out test fails the run');
    assert.match(output, /timed out after 500ms/);
  } finally {
    run.kill('SIGKILL');
    // The runner leaves it running (it only stops waiting for it).
    if (child > 0) {
      try {
        process.kill(child, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});
