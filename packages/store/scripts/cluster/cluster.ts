// Several `store serve` instances on one database and one Redis, behind HAProxy: what a shop that grows runs.
// Each instance is a real process (so one can be killed with SIGKILL and started again); they share the data
// directory (the TLS certificate) and STORE_AUTH_KEY, which is what makes sessions, OAuth codes and app
// secrets good on every instance.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '@app/database';
import { freePort } from '@app/database/testing';
import { createApp } from '../../src/auth/apps.ts';
import { authContext, type AuthContext } from '../../src/auth/context.ts';
import { loadAuthKey } from '../../src/auth/auth-key.ts';
import { createConsoleToken } from '../../src/auth/tokens.ts';
import type { AuthTables } from '../../src/auth/schema.ts';
import { haproxyConfig } from './haproxy-config.ts';

export const HAPROXY = process.env.HAPROXY ?? '/usr/sbin/haproxy';
const STORE_BIN = fileURLToPath(new URL('../../bin/store.ts', import.meta.url));

export interface ClusterOptions {
  databaseUrl: string;
  redisUrl: string;
  /** Holds the certificate, HAProxy's files and each instance's log. */
  dir: string;
  instances?: number;
  /** The load balancer's port; 0 picks a free one. */
  port?: number;
  /** STORE_WEBHOOK_ALLOWED_NETWORKS and STORE_WEBHOOK_CA_FILE for the instances. */
  webhookNetworks?: string;
  webhookCaFile?: string;
}

export interface Instance {
  readonly name: string;
  readonly port: number;
  /** https://127.0.0.1:<port>/api/v1, bypassing the load balancer. */
  readonly apiUrl: string;
  readonly running: boolean;
  /** The process's id while it runs. */
  readonly pid: number | undefined;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM (the instance finishes its answers and closes), SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** Starts the process again on the same port; resolves once it listens. */
  start(): Promise<void>;
}

export interface Cluster {
  /** https://127.0.0.1:<port>/api/v1 through HAProxy. */
  apiUrl: string;
  origin: string;
  /** The store's certificate (PEM): what clients trust. */
  certificate: string;
  instances: Instance[];
  /** The admin account a first start made (undefined when the database already held a store). */
  admin: { email: string; password: string } | undefined;
  authKey: string;
  /** Non-expiring tokens of new custom apps, one app each (so each has a rate limit of its own). */
  tokens(count: number, scopes?: string): Promise<string[]>;
  /** A new custom app that takes OAuth grants to `redirectUri`: its App ID and App Secret. */
  oauthClient(redirectUri: string): Promise<{ clientId: string; secret: string }>;
  stop(): Promise<void>;
}

function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 60_000): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let rest = '';
    const timer = setTimeout(() => fail(new Error(`${what} did not start within ${timeoutMs} ms:\n${lines.join('\n')}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      rest += chunk.toString('utf8');
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
      if (parts.some((line) => pattern.test(line))) done();
    };
    const onExit = (code: number | null) => fail(new Error(`${what} exited (${code}) before it was ready:\n${lines.join('\n')}${rest}`));
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    };
    const done = () => {
      cleanup();
      resolve(lines);
    };
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  if (!existsSync(HAPROXY)) throw new Error(`HAProxy is not installed at ${HAPROXY} (apt-get install haproxy, or set HAPROXY)`);
  const { dir } = options;
  mkdirSync(dir, { recursive: true });
  // STORE_AUTH_KEY, else the key file in the shared directory (made on the first run, kept for the next).
  const authKey = Buffer.from(loadAuthKey({ file: join(dir, 'auth.key') })).toString('hex');
  const count = options.instances ?? 3;
  const ports: number[] = [];
  for (let i = 0; i < count; i += 1) ports.push(await freePort());
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dir,
    STORE_AUTH_KEY: authKey,
    STORE_REDIS_URL: options.redisUrl,
    STORE_DATABASE_URL: options.databaseUrl,
    ...(options.webhookNetworks === undefined ? {} : { STORE_WEBHOOK_ALLOWED_NETWORKS: options.webhookNetworks }),
    ...(options.webhookCaFile === undefined ? {} : { STORE_WEBHOOK_CA_FILE: options.webhookCaFile }),
  };
  let admin: Cluster['admin'];

  const instances = ports.map((port, index) => {
    const name = `store${index + 1}`;
    let child: ChildProcess | undefined;
    const signal = async (name: NodeJS.Signals) => {
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill(name);
      await exited;
    };
    const instance: Instance = {
      name,
      port,
      apiUrl: `https://127.0.0.1:${port}/api/v1`,
      get running() {
        return child !== undefined && child.exitCode === null && child.signalCode === null;
      },
      get pid() {
        return instance.running ? child?.pid : undefined;
      },
      async start() {
        const log = createWriteStream(join(dir, `${name}.log`), { flags: 'a' });
        const started = spawn(
          process.execPath,
          [STORE_BIN, 'serve', '--host', '127.0.0.1', '--port', String(port), '--trusted-proxy', '127.0.0.1'],
          { env, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        child = started;
        started.stdout.pipe(log);
        started.stderr.pipe(log);
        const lines = await waitForLine(started, /^Store API listening on /, name);
        const email = lines.find((line) => line.trim().startsWith('email:'));
        const password = lines.find((line) => line.trim().startsWith('password:'));
        if (email !== undefined && password !== undefined)
          admin = { email: email.split(':')[1]?.trim() ?? '', password: password.slice(password.indexOf(':') + 1).trim() };
      },
      kill: () => signal('SIGKILL'),
      async stop() {
        const forced = setTimeout(() => void signal('SIGKILL'), 10_000);
        await signal('SIGTERM');
        clearTimeout(forced);
      },
    };
    return instance;
  });

  /** The store's apps and tokens, as `store token create` reaches them: straight in the database, with the shared key. */
  async function withAuth<T>(body: (ctx: AuthContext, storeId: number) => Promise<T>): Promise<T> {
    const database = await openDatabase<AuthTables>(options.databaseUrl);
    try {
      const ctx = authContext({ db: database.db, dialect: database.dialect, key: Buffer.from(authKey, 'hex') });
      const store = await database.db.selectFrom('stores').select('id').orderBy('id').executeTakeFirstOrThrow();
      return await body(ctx, Number(store.id));
    } finally {
      await database.close();
    }
  }

  let haproxy: ChildProcess | undefined;
  const stop = async () => {
    haproxy?.kill('SIGTERM');
    await Promise.all(instances.map((instance) => instance.stop()));
  };
  try {
    // One at a time: the first brings the schema up, makes the store and the certificate the others use.
    for (const instance of instances) await instance.start();
    const certificate = readFileSync(join(dir, 'tls', 'store-cert.pem'), 'utf8');
    const pemFile = join(dir, 'haproxy.pem');
    writeFileSync(pemFile, `${certificate}\n${readFileSync(join(dir, 'tls', 'store-key.pem'), 'utf8')}`, { mode: 0o600 });
    const port = options.port === undefined || options.port === 0 ? await freePort() : options.port;
    const configFile = join(dir, 'haproxy.cfg');
    writeFileSync(
      configFile,
      haproxyConfig({
        port,
        pemFile,
        caFile: join(dir, 'tls', 'store-cert.pem'),
        instances: instances.map((i) => ({ name: i.name, port: i.port })),
        pidFile: join(dir, 'haproxy.pid'),
      }),
    );
    const check = spawn(HAPROXY, ['-c', '-q', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    let checkOutput = '';
    check.stderr.on('data', (chunk: Buffer) => (checkOutput += chunk.toString()));
    const checked = await new Promise<number | null>((resolve) => check.once('exit', resolve));
    if (checked !== 0) throw new Error(`haproxy -c refused ${configFile}: ${checkOutput}`);
    const proxy = spawn(HAPROXY, ['-db', '-f', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    haproxy = proxy;
    proxy.stderr.pipe(createWriteStream(join(dir, 'haproxy.log'), { flags: 'a' }));
    const origin = `https://127.0.0.1:${port}`;
    await waitUntilServing(origin, certificate);

    return {
      apiUrl: `${origin}/api/v1`,
      origin,
      certificate,
      instances,
      get admin() {
        return admin;
      },
      authKey,
      tokens: (howMany, scopes = 'system') =>
        withAuth(async (ctx, storeId) => {
          const made: string[] = [];
          for (let i = 0; i < howMany; i += 1) {
            const { app } = await createApp(ctx, storeId, { name: `cluster ${randomBytes(4).toString('hex')}`, kind: 'custom' });
            made.push((await createConsoleToken(ctx, app, { scopes, label: 'cluster' })).accessToken);
          }
          return made;
        }),
      oauthClient: (redirectUri) =>
        withAuth(async (ctx, storeId) => {
          const { app, secret } = await createApp(ctx, storeId, {
            name: `cluster oauth ${randomBytes(4).toString('hex')}`,
            kind: 'custom',
            redirectUri,
          });
          return { clientId: app.clientId, secret };
        }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Until HAProxy answers through to an instance (its checks have found them up). */
async function waitUntilServing(origin: string, certificate: string): Promise<void> {
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ connect: { ca: certificate } });
  const deadline = Date.now() + 15_000;
  try {
    for (;;) {
      try {
        const response = await request(`${origin}/favicon.ico`, { dispatcher });
        await response.body.dump();
        if (response.statusCode === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`HAProxy at ${origin} did not reach an instance within 15 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await dispatcher.close();
  }
}
