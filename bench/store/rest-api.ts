// Store API throughput over real HTTPS on loopback, GET /products.json?count=100 and POST /products.json:
//  - the store as served vs a bare Fastify route answering the same JSON (the ceiling; goal >= 50%);
//  - the store with rate limiting + caching vs the same routes without them (goal: < 15% overhead).
// Every call carries its own X-AC-Auth-Token, so each is counted but none is refused.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { postBody } from './post-body.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
// The machine is shared, so the three servers take turns over several rounds and the median counts.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Figures {
  rps: number;
  p99: number;
  errors: number;
}

async function load(url: string, ca: string, method: 'GET' | 'POST', extraHeaders: Record<string, string> = {}): Promise<Figures> {
  const target = new URL(url);
  const result = await autocannon({
    url: target.origin,
    connections: CONNECTIONS,
    duration: DURATION_S,
    tlsOptions: { ca },
    requests: [
      {
        method,
        path: target.pathname + target.search,
        ...(method === 'POST' ? { body: postBody } : {}),
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, ...extraHeaders, 'x-ac-auth-token': randomUUID(), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        }),
      },
    ],
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.non2xx + result.errors + result.timeouts };
}

function median(figures: Figures[]): Figures {
  const sorted = [...figures].sort((a, b) => a.rps - b.rps);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('no runs');
  return { ...middle, errors: figures.reduce((sum, f) => sum + f.errors, 0) };
}

const servers = fork(new URL('./servers.ts', import.meta.url), { stdio: 'inherit' });
const [origins] = (await once(servers, 'message')) as [{ full: string; plain: string; bare: string; ca: string }];

const show = (f: Figures) => `${f.rps.toFixed(0).padStart(6)} req/s p99 ${String(f.p99).padStart(4)} ms${f.errors > 0 ? ` (${f.errors} errors!)` : ''}`;
const percent = (x: number) => `${(x * 100).toFixed(1)}%`;
const lines: string[] = [];
try {
  for (const [method, path] of [
    ['GET', '/api/v1/products.json?count=100'],
    ['POST', '/api/v1/products.json'],
  ] as const) {
    const runs: Record<'bare' | 'plain' | 'full' | 'bypass', Figures[]> = { bare: [], plain: [], full: [], bypass: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const name of ['bare', 'plain', 'full'] as const) runs[name].push(await load(`${origins[name]}${path}`, origins.ca, method));
      // The machinery's cost without the cache's gain: every GET revalidates past the server-side cache.
      if (method === 'GET') runs.bypass.push(await load(`${origins.full}${path}`, origins.ca, method, { 'cache-control': 'no-cache' }));
    }
    const bare = median(runs.bare);
    const plain = median(runs.plain);
    const full = median(runs.full);
    lines.push(`${method} ${path}`);
    lines.push(`  bare Fastify (ceiling)            ${show(bare)}`);
    lines.push(`  store, no rate limit / no cache   ${show(plain)}   ${percent(plain.rps / bare.rps)} of ceiling`);
    lines.push(`  store as served                   ${show(full)}   ${percent(full.rps / bare.rps)} of ceiling; rate limit + caching cost ${percent(1 - full.rps / plain.rps)}`);
    if (runs.bypass.length > 0) {
      const bypass = median(runs.bypass);
      lines.push(`  store as served, no-cache GETs    ${show(bypass)}   rate limit + caching cost ${percent(1 - bypass.rps / plain.rps)}`);
    }
  }
} finally {
  servers.disconnect();
}
console.log(`store REST API over HTTPS: ${CONNECTIONS} connections, median of ${ROUNDS} interleaved ${DURATION_S} s runs, SQLite, servers in their own process`);
for (const line of lines) console.log(line);
console.log('goals: store as served >= 50% of the ceiling; rate limiting + caching cost < 15% (negative: faster than without)');
