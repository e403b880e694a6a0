// The demo through the domain health service: its RPC API, web interface and agent run inside the lab;
// tests are submitted over JSON-RPC from the host through a forwarded port, which stays open afterwards.
import { join } from 'node:path';
import type { Lab } from '../namespace/start-lab.ts';
import { commandLineDomain } from '../scenario/command-line-domain.ts';
import { LAB_PROFILE, writeLabProfile } from './lab-profile.ts';

const insidePort = 5000;

export interface ServiceResult {
  domain: string;
  id: string;
  results: { module: string; testcase: string; level: string; message: string }[];
}

/** `port`: where the service (JSON-RPC and web interface) answers on the host once it started; it keeps running. */
export type ServiceDemoOutcome = { ran: true; results: ServiceResult[]; port: number } | { ran: false; reason: string; port?: number };

export async function runThroughService(lab: Lab, serviceCli: string, domains: string[], print: (line: string) => void): Promise<ServiceDemoOutcome> {
  const env = { DNS_SERVICE_DATABASE_URL: `sqlite:${join(lab.dir, 'demo.sqlite')}`, DNS_SERVICE_LISTEN: `127.0.0.1:${insidePort}`, DATA_DIR: lab.dir };
  const { config } = writeLabProfile(lab.dir);
  const serve = lab.spawn(process.execPath, [serviceCli, 'serve', '--with-agent', '--config', config], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  serve.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  serve.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const up = await waitFor(() => /JSON-RPC API on/.test(log) || serve.exitCode !== null, 30_000);
  if (!up || serve.exitCode !== null) return { ran: false, reason: `the service did not start: ${log.trim().slice(-400)}` };

  const port = await lab.forward(insidePort);
  let nextId = 1;
  const rpc = async (method: string, params?: unknown): Promise<unknown> => {
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }) });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };

  print(`Service: JSON-RPC on the lab's 127.0.0.1:${insidePort}, reached from the host at 127.0.0.1:${port}; version_info ${JSON.stringify(await rpc('version_info'))}`);
  const ids = new Map<string, string>();
  for (const domain of domains) ids.set(domain, String(await rpc('start_domain_test', { domain: commandLineDomain(domain), profile: LAB_PROFILE })));
  print(`Submitted ${ids.size} tests with the ${LAB_PROFILE} profile: ${[...ids].map(([d, id]) => `${d} -> ${id}`).join(', ')}`);

  const finished = await waitFor(async () => {
    for (const id of ids.values()) if (Number(await rpc('test_progress', { test_id: id })) < 100) return false;
    return true;
  }, 180_000);
  if (!finished) return { ran: false, reason: 'the tests did not finish within 3 minutes', port };
  const results: ServiceResult[] = [];
  for (const [domain, id] of ids) {
    const result = (await rpc('get_test_results', { id, language: 'en' })) as { results: ServiceResult['results'] };
    results.push({ domain, id, results: result.results });
  }
  return { ran: true, results, port };
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return check();
}
