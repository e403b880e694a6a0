// `store token create` prints a token a script can use at once; `store admin create` makes an admin.
// Bad input is exit status 2.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { signIn } from '../../src/auth/admins.ts';
import { serveStore } from '../../src/server.ts';

const run = promisify(execFile);
const bin = resolve(import.meta.dirname, '../../bin/store.ts');

async function store(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return storeWith({}, dataDir, ...args);
}

async function storeWith(extraEnv: NodeJS.ProcessEnv, dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ...extraEnv };
    delete env.STORE_DATABASE_URL;
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

test('store token create makes a token the served API accepts, within its scopes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'store-cli-'));
  try {
    const made = await store(dataDir, 'token', 'create', '--app', 'Nightly export', '--scopes', 'read_catalog');
    assert.equal(made.code, 0, made.stderr);
    const token = made.stdout.trim();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.match(made.stderr, /made the custom app "Nightly export"/);

    const bad = await store(dataDir, 'token', 'create', '--app', 'Nightly export', '--scopes', 'read_catalog,everything');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown scope: everything/);
    assert.equal((await store(dataDir, 'token', 'create', '--scopes', 'read_catalog')).code, 2);

    const served = await serveStore({ databaseUrl: `sqlite:${join(dataDir, 'store.sqlite')}`, dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent' });
    const dispatcher = new Agent({ connect: { ca: served.certificate } });
    try {
      const get = async (path: string) => (await request(`${served.apiUrl}${path}`, { headers: { 'x-ac-auth-token': token }, dispatcher })).statusCode;
      assert.equal(await get('/products'), 200);
      assert.equal(await get('/orders'), 403);
    } finally {
      await dispatcher.close();
      await served.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('store admin create makes an admin who can sign in; a short password is refused', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'store-cli-'));
  try {
    const short = await storeWith({ STORE_ADMIN_PASSWORD: 'short' }, dataDir, 'admin', 'create', '--email', 'ops@example.com');
    assert.equal(short.code, 2);
    assert.match(short.stderr, /at least 10 characters/);
    const made = await storeWith({ STORE_ADMIN_PASSWORD: 'a long enough password' }, dataDir, 'admin', 'create', '--email', 'Ops@Example.com', '--access', 'catalog,orders');
    assert.equal(made.code, 0, made.stderr);
    const served = await serveStore({ databaseUrl: `sqlite:${join(dataDir, 'store.sqlite')}`, dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent' });
    try {
      const result = await signIn(served.app.storeAuth, 'ops@example.com', 'a long enough password', '127.0.0.1');
      assert.ok(result.ok);
      assert.deepEqual(result.admin.access, ['catalog', 'orders']);
    } finally {
      await served.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
