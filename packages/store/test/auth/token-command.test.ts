// `store token create` prints a token a script can use at once; `store admin create` makes an admin.
// Bad input is exit status 2; every command names the store it works on; nothing makes a store or an app
// unless --create says so.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { signIn } from '../../src/auth/admins.ts';
import { serveStore } from '../../src/server.ts';

const run = promisify(execFile);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const bin = resolve(import.meta.dirname, '../../bin/store.ts');

async function store(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return storeWith({}, dataDir, ...args);
}

async function storeWith(
  extraEnv: NodeJS.ProcessEnv,
  dataDir: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return storeIn(process.cwd(), extraEnv, dataDir, ...args);
}

async function storeIn(
  cwd: string,
  extraEnv: NodeJS.ProcessEnv,
  dataDir: string | undefined,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.STORE_DATABASE_URL;
    if (dataDir !== undefined) env.DATA_DIR = dataDir;
    Object.assign(env, extraEnv);
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

test('store token create makes a token the served API accepts, within its scopes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'store-cli-'));
  try {
    const made = await store(dataDir, 'token', 'create', '--app', 'Nightly export', '--scopes', 'read_catalog', '--create');
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stderr, new RegExp(`^store: database sqlite:${escapeRegExp(join(dataDir, 'store.sqlite'))} \\(DATA_DIR=`, 'm'));
    const token = made.stdout.trim();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.match(made.stderr, /made the custom app "Nightly export"/);

    const bad = await store(dataDir, 'token', 'create', '--app', 'Nightly export', '--scopes', 'read_catalog,everything');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown scope: everything/);
    assert.equal((await store(dataDir, 'token', 'create', '--scopes', 'read_catalog')).code, 2);

    const served = await serveStore({
      databaseUrl: `sqlite:${join(dataDir, 'store.sqlite')}`,
      dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
    });
    const dispatcher = new Agent({ connect: { ca: served.certificate } });
    try {
      const get = async (path: string) =>
        (await request(`${served.apiUrl}${path}`, { headers: { 'x-ac-auth-token': token }, dispatcher })).statusCode;
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
    const short = await storeWith({ STORE_ADMIN_PASSWORD: 'short' }, dataDir, 'admin', 'create', '--email', 'ops@example.com', '--create');
    assert.equal(short.code, 2);
    assert.match(short.stderr, /at least 10 characters/);
    const made = await storeWith(
      { STORE_ADMIN_PASSWORD: 'a long enough password' },
      dataDir,
      'admin',
      'create',
      '--email',
      'Ops@Example.com',
      '--access',
      'catalog,orders',
      '--create',
    );
    assert.equal(made.code, 0, made.stderr);
    const served = await serveStore({
      databaseUrl: `sqlite:${join(dataDir, 'store.sqlite')}`,
      dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
    });
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

test('a mistyped app name is an error that lists the apps, and makes nothing', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'store-cli-'));
  try {
    assert.equal((await store(dataDir, 'token', 'create', '--app', 'Nightly export', '--scopes', 'read_catalog', '--create')).code, 0);
    const typo = await store(dataDir, 'token', 'create', '--app', 'Nightly exprot', '--scopes', 'read_catalog');
    assert.equal(typo.code, 2);
    assert.equal(typo.stdout, '', 'no token is printed');
    assert.match(typo.stderr, /no app named "Nightly exprot" \(its apps: "Nightly export"\); pass --create to make it/);
    const again = await store(dataDir, 'token', 'create', '--app', 'Nightly export', '--scopes', 'read_catalog');
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /made the custom app/, 'the existing app is used');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a data directory or database with no store is an error naming it, and no file is left behind', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'store-cli-'));
  try {
    const token = await store(dataDir, 'token', 'create', '--app', 'Export', '--scopes', 'read_catalog');
    assert.equal(token.code, 2);
    assert.match(
      token.stderr,
      new RegExp(
        `^store: database sqlite:${escapeRegExp(join(dataDir, 'store.sqlite'))} .*\\nstore: there is no store in that database yet`,
        'm',
      ),
    );
    assert.match(token.stderr, /store serve` makes one on its first start;\s+pass --create/);
    const admin = await storeWith(
      { STORE_ADMIN_PASSWORD: 'a long enough password' },
      dataDir,
      'admin',
      'create',
      '--email',
      'ops@example.com',
    );
    assert.equal(admin.code, 2);
    assert.match(admin.stderr, /there is no store in/);
    assert.deepEqual(readdirSync(dataDir), [], 'neither command made a database, key or certificate');

    // A relative --database is named as the absolute file it is, from wherever the command runs.
    const relative = await storeIn(
      dataDir,
      {},
      dataDir,
      'token',
      'create',
      '--app',
      'Export',
      '--scopes',
      'read_catalog',
      '--database',
      'sqlite:other.sqlite',
    );
    assert.equal(relative.code, 2);
    assert.match(relative.stderr, new RegExp(`store: database sqlite:${escapeRegExp(join(dataDir, 'other.sqlite'))} \\(--database\\)`));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("without DATA_DIR the store lives in the repository's data/ whatever the current directory", async () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'store-cli-cwd-'));
  try {
    const env: NodeJS.ProcessEnv = { DATA_DIR: '', STORE_DATABASE_URL: 'sqlite:' + join(elsewhere, 'nothing-here', 'store.sqlite') };
    // STORE_DATABASE_URL points away from any real store, so the command only reports where the data directory is.
    const result = await storeIn(elsewhere, env, undefined, 'token', 'create', '--app', 'Export', '--scopes', 'read_catalog');
    assert.equal(result.code, 2);
    assert.match(result.stderr, new RegExp(`data directory ${escapeRegExp(resolve(import.meta.dirname, '../../../../data'))}$`, 'm'));
    assert.deepEqual(readdirSync(elsewhere), [], 'nothing was made in the current directory');
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});
