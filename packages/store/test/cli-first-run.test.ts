// What a newcomer meets with the store command: help however asked, and a port already taken said in one line.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const bin = resolve(import.meta.dirname, '../bin/store.ts');

function store(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

test('help, --help and -h print the usage on stdout and succeed; an unknown command is 2', async () => {
  for (const asked of ['help', '--help', '-h']) {
    const { code, stdout } = await store([asked]);
    assert.equal(code, 0, asked);
    assert.match(stdout, /^Usage: store serve/, asked);
  }
  const unknown = await store(['launch']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^Usage: store serve/);
});

test('a port already in use: one line, exit 1, and nothing after it (the webhook worker stops with the app)', async () => {
  const taken = createServer();
  await new Promise<void>((ready) => taken.listen(0, '127.0.0.1', ready));
  const { port } = taken.address() as AddressInfo;
  const data = mkdtempSync(join(tmpdir(), 'store-port-'));
  try {
    const { code, stdout, stderr } = await store(['serve', '--port', String(port), '--database', `sqlite:${join(data, 'store.sqlite')}`], {
      DATA_DIR: data,
    });
    assert.equal(code, 1);
    assert.equal(stderr.trim(), `store: listen EADDRINUSE: address already in use 127.0.0.1:${port}`);
    assert.deepEqual(
      stdout.trim().split('\n').slice(1),
      [],
      'after the line naming the database, nothing (no "driver has already been destroyed")',
    );
  } finally {
    taken.close();
    rmSync(data, { recursive: true, force: true });
  }
});

test('the store has a favicon: a PNG at /favicon.ico, without a token, cached for a day', async () => {
  const { sqliteTarget } = await import('./support/targets.ts');
  const { startStoreUnderTest } = await import('./support/store-under-test.ts');
  const s = await startStoreUnderTest(await sqliteTarget());
  try {
    const icon = await s.call('GET', `${new URL(s.api).origin}/favicon.ico`, { anonymous: true });
    assert.equal(icon.status, 200);
    assert.equal(icon.headers['content-type'], 'image/png');
    assert.match(String(icon.headers['cache-control']), /max-age=86400/);
    const bytes = Buffer.from(icon.text, 'latin1');
    assert.deepEqual([...bytes.subarray(1, 4)].map((b) => String.fromCharCode(b)).join(''), 'PNG');
  } finally {
    await s.close();
  }
});
