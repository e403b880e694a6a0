// What a newcomer meets starting the service: the shipped sample configuration, a port already taken, no agent.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { loadConfig } from '../src/config/service-config.ts';

const bin = new URL('../bin/dns-service.ts', import.meta.url).pathname;
const sample = new URL('../backend_config.ini', import.meta.url).pathname;

test('the shipped backend_config.ini loads, and every value it sets is the default', () => {
  const fromSample = loadConfig({ file: sample, env: {} });
  const builtIn = loadConfig({ env: {} });
  assert.deepEqual({ ...fromSample, profiles: [...fromSample.profiles.keys()] }, { ...builtIn, profiles: [...builtIn.profiles.keys()] });
});

test('a port already in use is one line naming the address and the way out, exit 1, no stack trace', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as AddressInfo;
  const data = mkdtempSync(join(tmpdir(), 'service-port-'));
  try {
    const child = spawn(process.execPath, [bin, 'serve', '--listen', `127.0.0.1:${port}`], {
      env: { ...process.env, DATA_DIR: data },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.match(
      stderr,
      new RegExp(`^dns-service: cannot listen on 127\\.0\\.0\\.1:${port}: another process already uses that port .*--listen`),
    );
    assert.doesNotMatch(stderr, /EADDRINUSE|\bat \S+ \(/);
  } finally {
    taken.close();
    rmSync(data, { recursive: true, force: true });
  }
});

test('serve without an agent says that tests wait for one', async () => {
  const data = mkdtempSync(join(tmpdir(), 'service-noagent-'));
  const child = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, DATA_DIR: data },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines: string[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      lines.push(line);
      if (/^dns-service: (?:no )?agent/.test(line)) break;
    }
    assert.match(lines.join('\n'), /no agent in this process: tests wait in queue 0 until `dns-service agent` runs/);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(data, { recursive: true, force: true });
  }
});

test("serving the web interface logs no ExperimentalWarning (the client's TypeScript is stripped without node:module's experimental API)", async () => {
  const data = mkdtempSync(join(tmpdir(), 'service-warnings-'));
  const child = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, DATA_DIR: data },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    let url: string | undefined;
    for await (const line of createInterface({ input: child.stdout })) {
      url ??= /web interface on (http:\/\/\S+\/)/.exec(line)?.[1];
      if (url !== undefined) break;
    }
    assert.ok(url !== undefined, "serve names the web interface's address");
    const html = await (await fetch(url)).text();
    const script = /<script type="module" src="(\/assets\/[^"]+\.ts)">/.exec(html)?.[1];
    assert.ok(script !== undefined);
    const asset = await fetch(new URL(script, url));
    assert.equal(asset.status, 200);
    assert.doesNotMatch(await asset.text(), /: (?:string|number|boolean)\b/, 'types are stripped');
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(data, { recursive: true, force: true });
  }
  assert.doesNotMatch(stderr, /ExperimentalWarning|stripTypeScriptTypes/, stderr);
});
