// The store API against a bare Fastify HTTPS route answering the same JSON (the ceiling), in one run.
// GET /products.json?count=100 and POST /products.json over real TLS on loopback; prints req/s, p99 and the ratio.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { postBody } from './post-body.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Figures {
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
}

async function load(url: string, ca: string, method: 'GET' | 'POST'): Promise<Figures> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    method,
    ...(method === 'POST' ? { body: postBody, headers: { 'content-type': 'application/json' } } : {}),
    tlsOptions: { ca },
  });
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, errors: result.non2xx + result.errors + result.timeouts };
}

const servers = fork(new URL('./servers.ts', import.meta.url), { stdio: 'inherit' });
const [origins] = (await once(servers, 'message')) as [{ store: string; bare: string; ca: string }];

const rows: string[] = [];
let worst = Infinity;
try {
  for (const [method, path] of [
    ['GET', '/api/v1/products.json?count=100'],
    ['POST', '/api/v1/products.json'],
  ] as const) {
    const ceiling = await load(`${origins.bare}${path}`, origins.ca, method);
    const api = await load(`${origins.store}${path}`, origins.ca, method);
    const ratio = api.requestsPerSecond / ceiling.requestsPerSecond;
    worst = Math.min(worst, ratio);
    rows.push(
      `${`${method} ${path}`.padEnd(40)} store ${api.requestsPerSecond.toFixed(0).padStart(6)} req/s p99 ${String(api.p99Ms).padStart(4)} ms (errors ${api.errors})` +
        ` | bare Fastify ${ceiling.requestsPerSecond.toFixed(0).padStart(6)} req/s p99 ${String(ceiling.p99Ms).padStart(4)} ms` +
        ` | ratio ${(ratio * 100).toFixed(1)}%`,
    );
  }
} finally {
  servers.disconnect();
}

console.log(`store REST API vs bare Fastify over HTTPS (${CONNECTIONS} connections, ${DURATION_S} s each, SQLite, servers in their own process)`);
for (const row of rows) console.log(row);
console.log(`worst ratio ${(worst * 100).toFixed(1)}% (goal: at least 50%)`);
