// The demo through the domain health service: its RPC API, web interface and agent run inside the lab;
// tests are submitted over JSON-RPC from the host through a forwarded port, which stays open afterwards.
// The service is a local sandbox here: add_api_user is on (batches and watches can be tried), and a
// watch alerts a webhook receiver the demo runs beside the service.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { generate } from 'selfsigned';
import type { Lab } from '../namespace/start-lab.ts';
import { commandLineDomain } from '../scenario/command-line-domain.ts';
import { LAB_PROFILE, labProfilePath } from './lab-profile.ts';

const insidePort = 5000;
const receiverPort = 5001;
const receiverPath = resolve(import.meta.dirname, 'alert-receiver.ts');

/**
 * The service refuses webhooks to loopback and private addresses unless its operator allows them; the
 * demo's receiver is on the lab's loopback, so the demo allows exactly that. The one place that names
 * the setting: `[WATCH] allowed_networks` (CIDR list, as the store's STORE_WEBHOOK_ALLOWED_NETWORKS).
 */
export const webhookException = { section: 'WATCH', key: 'allowed_networks', value: '127.0.0.1/32' } as const;

export interface ServiceResult {
  domain: string;
  id: string;
  results: { module: string; testcase: string; level: string; message: string }[];
}

/** The API user the demo made, and the watch it added. */
export interface Sandbox {
  username: string;
  apiKey: string;
  watch?: { id: number; domain: string; schedule: string };
}

/** `port`: where the service (JSON-RPC and web interface) answers on the host once it started; it keeps running. */
export type ServiceDemoOutcome =
  { ran: true; results: ServiceResult[]; port: number; sandbox: Sandbox } | { ran: false; reason: string; port?: number };

export interface ServiceDemoOptions {
  /** The host port (0 or absent: any free one). */
  port?: number;
  /** The domain the demo's watch tests every minute, with the lab profile. */
  watchDomain?: string;
  /** Called with each alert the receiver takes, as it arrives. */
  onAlert?: (alert: WatchAlert) => void;
}

export interface WatchAlert {
  domain: string;
  overall_result: string;
  previous_overall_result: string;
  compare_url: string;
  appeared: { level: string; tag: string; message: string }[];
  disappeared: { level: string; tag: string; message: string }[];
}

export async function runThroughService(
  lab: Lab,
  serviceCli: string,
  domains: string[],
  print: (line: string) => void,
  options: ServiceDemoOptions = {},
): Promise<ServiceDemoOutcome> {
  const hostPort = options.port !== undefined && options.port > 0 ? options.port : await freePort();
  const receiver = await startReceiver(lab, options.onAlert);
  const config = writeServiceConfig(lab.dir, { publicUrl: `http://127.0.0.1:${hostPort}`, caFile: receiver.caFile });
  const env = {
    DNS_SERVICE_DATABASE_URL: `sqlite:${join(lab.dir, 'demo.sqlite')}`,
    DNS_SERVICE_LISTEN: `127.0.0.1:${insidePort}`,
    DATA_DIR: lab.dir,
  };
  print(`Starting the domain health service inside the lab (JSON-RPC, web interface and a test agent)…`);
  const serve = lab.spawn(process.execPath, [serviceCli, 'serve', '--with-agent', '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  serve.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  serve.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const up = await waitFor(() => /JSON-RPC API on/.test(log) || serve.exitCode !== null, 30_000);
  if (!up || serve.exitCode !== null) return { ran: false, reason: `the service did not start: ${log.trim().slice(-400)}` };

  const port = await lab.forward(insidePort, '127.0.0.1', hostPort);
  let nextId = 1;
  const rpc = async (method: string, params?: unknown): Promise<unknown> => {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message: string; data?: unknown } };
    if (body.error !== undefined)
      throw new Error(`${method}: ${body.error.message}${body.error.data === undefined ? '' : ` ${JSON.stringify(body.error.data)}`}`);
    return body.result;
  };

  print(
    `Service: JSON-RPC on the lab's 127.0.0.1:${insidePort}, reached from the host at 127.0.0.1:${port}; version_info ${JSON.stringify(await rpc('version_info'))}`,
  );
  const ids = new Map<string, string>();
  for (const domain of domains)
    ids.set(domain, String(await rpc('start_domain_test', { domain: commandLineDomain(domain), profile: LAB_PROFILE })));
  print(`Submitted ${ids.size} tests with the ${LAB_PROFILE} profile: ${[...ids].map(([d, id]) => `${d} -> ${id}`).join(', ')}`);

  const finished = new Set<string>();
  const allDone = await waitFor(async () => {
    for (const [domain, id] of ids) {
      if (finished.has(id) || Number(await rpc('test_progress', { test_id: id })) < 100) continue;
      finished.add(id);
      print(`  ${finished.size}/${ids.size} tests finished (${domain})`);
    }
    return finished.size === ids.size;
  }, 180_000);
  if (!allDone) return { ran: false, reason: 'the tests did not finish within 3 minutes', port };
  const results: ServiceResult[] = [];
  for (const [domain, id] of ids) {
    const result = (await rpc('get_test_results', { id, language: 'en' })) as { results: ServiceResult['results'] };
    results.push({ domain, id, results: result.results });
  }

  const sandbox: Sandbox = { username: 'demo', apiKey: randomBytes(12).toString('hex') };
  await rpc('add_api_user', { username: sandbox.username, api_key: sandbox.apiKey });
  if (options.watchDomain !== undefined) {
    const domain = commandLineDomain(options.watchDomain);
    const added = (await rpc('watch_add', {
      username: sandbox.username,
      api_key: sandbox.apiKey,
      domain,
      schedule: 'every 1m',
      profile: LAB_PROFILE,
      webhook_url: receiver.url,
    })) as { watch_id: number; schedule: string };
    sandbox.watch = { id: added.watch_id, domain, schedule: added.schedule };
  }
  return { ran: true, results, port, sandbox };
}

/** The service's backend_config.ini: the lab profile beside the default, add_api_user on, watch alerts to the demo's receiver. */
function writeServiceConfig(dir: string, watch: { publicUrl: string; caFile: string }): string {
  const config = join(dir, 'backend_config.ini');
  writeFileSync(
    config,
    [
      '; Written by the demo, a local sandbox: add_api_user is on, and webhooks may go to its own receiver on loopback.',
      '[RPCAPI]',
      'enable_add_api_user = true',
      '[PUBLIC PROFILES]',
      `${LAB_PROFILE} = ${labProfilePath}`,
      '[WATCH]',
      `public_url = ${watch.publicUrl}`,
      'poll_interval = 1',
      `ca_file = ${watch.caFile}`,
      `${webhookException.key} = ${webhookException.value}`,
      '',
    ].join('\n'),
  );
  return config;
}

/** Starts the alert receiver inside the lab with a certificate made for it; answers its URL and the CA file to trust. */
async function startReceiver(lab: Lab, onAlert: ServiceDemoOptions['onAlert']): Promise<{ url: string; caFile: string }> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 30 * 86_400_000),
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const caFile = join(lab.dir, 'receiver-cert.pem');
  const keyFile = join(lab.dir, 'receiver-key.pem');
  writeFileSync(caFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  const child = lab.spawn(process.execPath, [receiverPath, String(receiverPort), caFile, keyFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((listening, fail) => {
    child.once('exit', (code) => fail(new Error(`the demo's alert receiver stopped (exit ${code})`)));
    lines.on('line', (line) => {
      if (line === 'listening') return listening();
      try {
        onAlert?.((JSON.parse(line) as { alert: WatchAlert }).alert);
      } catch {
        // Only the receiver writes here; a line it did not make is nobody's alert.
      }
    });
  });
  return { url: `https://127.0.0.1:${receiverPort}/alerts`, caFile };
}

/** A TCP port free on the host's loopback just now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return check();
}
