// `dns-service serve` as an operator runs it: from a config file, answering on loopback, stopping on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { writeConfigFixture } from './config-fixture.ts';

const bin = new URL('../bin/dns-service.ts', import.meta.url).pathname;

test('serve --config FILE answers JSON-RPC and exits cleanly on SIGTERM', async () => {
  const child = spawn(process.execPath, [bin, 'serve', '--config', writeConfigFixture()], {
    env: { ...process.env, DNS_SERVICE_LISTEN: '127.0.0.1:0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: child.stdout });
    const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => ['exited'])])) as [string];
    const url = /on (http:\/\/\S+)/.exec(line)?.[1];
    assert.ok(url, `startup line: ${line}`);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"profile_names"}',
    });
    assert.deepEqual(await response.json(), { jsonrpc: '2.0', id: 1, result: ['default', 'extended', 'ipv4-only'] });
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('a bad command line or config names the problem and exits 2', async () => {
  for (const args of [['launch'], ['serve', '--config', '/nonexistent.ini'], ['serve', '--port', '1']]) {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 2, args.join(' '));
    assert.match(stderr, /Usage: dns-service serve|Cannot read the configuration file/);
  }
});
