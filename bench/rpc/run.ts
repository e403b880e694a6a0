// Requests per second and p99 latency of test_progress and start_domain_test under concurrent
// clients (autocannon), against a bare Fastify route measured in the same run.
// Env: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 50), DNS_SERVICE_DATABASE_URL (default SQLite).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const headers = { 'content-type': 'application/json' };

async function startServer(kind: 'bare' | 'service'): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [new URL('./servers.ts', import.meta.url).pathname, kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [url] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  return { url, child };
}

async function call(url: string, method: string, params: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const json = (await response.json()) as { result?: unknown; error?: unknown };
  if (json.error !== undefined) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}

interface Figures {
  name: string;
  rps: number;
  p99: number;
  errors: number;
}

async function load(name: string, url: string, body: () => string): Promise<Figures> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [{ method: 'POST', headers, setupRequest: (request) => ({ ...request, body: body() }) }],
  });
  const errors = result.errors + result.non2xx + result.timeouts;
  return { name, rps: result.requests.average, p99: result.latency.p99, errors };
}

const bare = await startServer('bare');
const service = await startServer('service');
try {
  const testId = (await call(service.url, 'start_domain_test', { domain: 'bench.example' })) as string;
  const progressBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_progress', params: { test_id: testId } });
  let n = 0;
  const figures = [
    await load('bare Fastify route (same body)', bare.url, () => progressBody),
    await load('test_progress', service.url, () => progressBody),
    await load('start_domain_test (new test each)', service.url, () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: ++n,
        method: 'start_domain_test',
        params: { domain: `d${n}.bench.example`, client_id: 'bench' },
      }),
    ),
    await load('start_domain_test (reused test)', service.url, () =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'start_domain_test', params: { domain: 'bench.example' } }),
    ),
  ];
  const base = figures[0].rps;
  console.log(`\nbench:rpc — ${connections} connections, ${seconds} s each, Node ${process.version}\n`);
  console.log(`${'case'.padEnd(36)} ${'req/s'.padStart(9)} ${'p99 ms'.padStart(8)} ${'vs bare'.padStart(8)} ${'errors'.padStart(7)}`);
  for (const f of figures) {
    console.log(
      `${f.name.padEnd(36)} ${f.rps.toFixed(0).padStart(9)} ${f.p99.toFixed(1).padStart(8)} ${(f.rps / base).toFixed(2).padStart(8)} ${String(f.errors).padStart(7)}`,
    );
  }
  const progress = figures[1];
  console.log(
    `\ntest_progress: ${progress.rps.toFixed(0)} req/s (goal ≥ 5000: ${progress.rps >= 5000 ? 'met' : 'NOT met'}), ${(progress.rps / base).toFixed(2)}× the bare route`,
  );
} finally {
  bare.child.kill('SIGTERM');
  service.child.kill('SIGTERM');
}
