// Store API throughput over real HTTPS on loopback, GET /products.json?count=100 and POST /products.json:
//  - no-cache GETs of 100 and 1000 products with all their fields vs a node:sqlite peer (goal >= 70%), and vs the
//    same peer letting SQLite write the JSON, as the store does (what is left is the store's own machinery);
//  - the store as served vs a bare Fastify route answering the same JSON (the ceiling; goal >= 50%);
//  - the store with rate limiting + caching vs the same routes without them (goal: < 15% overhead);
//  - POSTs with one webhook subscription to ProductCreated (each write queues an event, a worker delivers it) vs none;
//  - the webhook backlog after 60 s of POSTs with one subscription (BENCH_ONLY=backlog runs only this).
// Calls cycle through the tokens of many custom apps, so each is authenticated and counted but none is refused.
// Besides req/s it reports the servers' CPU time per request, steadier than req/s on a busy machine.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { postBody } from './post-body.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
// The machine is shared, so the three servers take turns over several rounds and the median counts.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
// `reads` runs only the no-cache reads against the peers; `served` only the rest.
const ONLY = process.env.BENCH_ONLY;

interface Figures {
  rps: number;
  p99: number;
  errors: number;
  /** Server CPU time (user + system) per answered request, in microseconds. */
  cpuUs: number;
}

async function load(
  url: string,
  ca: string,
  method: 'GET' | 'POST',
  tokens: string[],
  extraHeaders: Record<string, string> = {},
  duration = DURATION_S,
): Promise<Figures> {
  const target = new URL(url);
  const cpuBefore = await serverCpu();
  let next = 0;
  const result = await autocannon({
    url: target.origin,
    connections: CONNECTIONS,
    duration,
    tlsOptions: { ca },
    requests: [
      {
        method,
        path: target.pathname + target.search,
        ...(method === 'POST' ? { body: postBody } : {}),
        setupRequest: (request) => ({
          ...request,
          headers: {
            ...request.headers,
            ...extraHeaders,
            'x-ac-auth-token': tokens[next++ % tokens.length] ?? '',
            ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          },
        }),
      },
    ],
  });
  const cpuAfter = await serverCpu();
  // A refused or failed call is not a measurement of serving (a 429 is cheaper than an answer): the bench fails.
  if (result.non2xx + result.errors + result.timeouts > 0) {
    throw new Error(
      `${method} ${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts in ${result.requests.total} calls`,
    );
  }
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    cpuUs: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total),
  };
}

/** The servers process's CPU time so far, in microseconds. */
async function serverCpu(): Promise<number> {
  servers.send('cpu');
  const [reply] = (await once(servers, 'message')) as [{ cpu: NodeJS.CpuUsage }];
  return reply.cpu.user + reply.cpu.system;
}

function middleOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('no runs');
  return middle;
}

function median(figures: Figures[]): Figures {
  return {
    rps: middleOf(figures.map((f) => f.rps)),
    p99: middleOf(figures.map((f) => f.p99)),
    cpuUs: middleOf(figures.map((f) => f.cpuUs)),
    errors: figures.reduce((sum, f) => sum + f.errors, 0),
  };
}

// `--scale`: the list endpoints on a million products and orders (PostgreSQL), instead of the throughput runs below.
if (process.argv.includes('--scale')) {
  await import('./scale.ts');
  process.exit(process.exitCode ?? 0);
}

const servers = fork(new URL('./servers.ts', import.meta.url), { stdio: 'inherit' });
type Server = 'full' | 'plain' | 'bare' | 'bareDb' | 'peer' | 'peerJson' | 'hooked';
const [origins] = (await once(servers, 'message')) as [Record<Server, string> & { ca: string; tokens: Record<Server, string[]> }];

async function pendingDeliveries(): Promise<number> {
  servers.send('deliveries');
  const [reply] = (await once(servers, 'message')) as [{ pending: number }];
  return reply.pending;
}

/** Waits (a minute at most) until the hooked store has delivered what its writes queued; answers the seconds waited. */
async function drained(): Promise<number> {
  const start = Date.now();
  while ((await pendingDeliveries()) > 0 && Date.now() - start < 60_000) await new Promise((resolve) => setTimeout(resolve, 500));
  return (Date.now() - start) / 1000;
}

const show = (f: Figures) =>
  `${f.rps.toFixed(0).padStart(6)} req/s p99 ${String(f.p99).padStart(4)} ms ${f.cpuUs.toFixed(0).padStart(5)} µs CPU/req${f.errors > 0 ? ` (${f.errors} errors!)` : ''}`;
const range = (figures: Figures[]) =>
  `${Math.min(...figures.map((f) => f.rps)).toFixed(0)}–${Math.max(...figures.map((f) => f.rps)).toFixed(0)} req/s`;
const percent = (x: number) => `${(x * 100).toFixed(1)}%`;
const lines: string[] = [];

/**
 * Whether deliveries keep up with writes: POSTs for BENCH_BACKLOG_S (60 s) on the store with one subscription, then
 * the events still pending at once, as a share of the events the run produced (goal < 1%), and the receiver's count
 * of deliveries that came out of order (goal 0).
 */
async function backlog(): Promise<void> {
  const seconds = Number(process.env.BENCH_BACKLOG_S ?? 60);
  const before = await backlogFigures();
  const figures = await load(`${origins.hooked}/api/v1/products.json`, origins.ca, 'POST', origins.tokens.hooked, {}, seconds);
  const after = await backlogFigures();
  const produced = after.produced - before.produced;
  lines.push(`POST /api/v1/products.json for ${seconds} s, one ProductCreated subscription: ${show(figures)}`);
  lines.push(
    `  webhook backlog at the end: ${after.pending} of ${produced} events produced (${percent(after.pending / Math.max(1, produced))}; goal < 1%); received ${after.received - before.received}, out of order ${after.outOfOrder}`,
  );
}
async function backlogFigures(): Promise<{ produced: number; pending: number; received: number; outOfOrder: number }> {
  servers.send('backlog');
  const [reply] = (await once(servers, 'message')) as [{ produced: number; pending: number; received: number; outOfOrder: number }];
  return reply;
}

try {
  if (ONLY === 'backlog' || ONLY === undefined) await backlog();
  for (const [method, path] of ONLY === 'reads' || ONLY === 'backlog'
    ? []
    : ([
        ['GET', '/api/v1/products.json?count=100'],
        ['POST', '/api/v1/products.json'],
      ] as const)) {
    const runs: Record<'bare' | 'bareDb' | 'plain' | 'full' | 'bypass' | 'hooked', Figures[]> = {
      bare: [],
      bareDb: [],
      plain: [],
      full: [],
      bypass: [],
      hooked: [],
    };
    // `bypass` is the machinery's cost without the cache's gain: every GET revalidates past the server-side cache.
    // `hooked` is the store as served with one ProductCreated subscription: POSTs only.
    // `bareDb` (POSTs only) is the issue's yardstick for writes: a bare Fastify route that inserts the row and answers it.
    const order =
      method === 'GET' ? (['bare', 'plain', 'full', 'bypass'] as const) : (['bare', 'bareDb', 'plain', 'full', 'hooked'] as const);
    for (let round = 0; round < ROUNDS; round += 1) {
      // Each round starts with another run, so none always follows the same neighbour (and the garbage it left).
      for (let i = 0; i < order.length; i += 1) {
        const name = order[(round + i) % order.length] ?? 'bare';
        const server = name === 'bypass' ? 'full' : name;
        runs[name].push(
          await load(
            `${origins[server]}${path}`,
            origins.ca,
            method,
            origins.tokens[server],
            name === 'bypass' ? { 'cache-control': 'no-cache' } : {},
          ),
        );
        // The hooked store's worker delivers in the servers' process: left running, it would take its CPU from
        // whichever server is loaded next (the store or the bare route, by the round), so it finishes first.
        if (name === 'hooked') await drained();
      }
    }
    const bare = median(runs.bare);
    const plain = median(runs.plain);
    const full = median(runs.full);
    const cpuCost = (f: Figures) => `CPU/req ${percent(f.cpuUs / plain.cpuUs - 1)}`;
    // Runs of one round are minutes closer in time than the medians, so their ratio drifts less with the machine's load.
    const pairedRatio = (of: Figures[], to: Figures[]) => middleOf(of.map((f, i) => f.rps / (to[i]?.rps ?? Number.NaN)));
    const paired = (of: Figures[], to: Figures[]) => percent(pairedRatio(of, to));
    const pairedCost = (of: Figures[]) => percent(1 - pairedRatio(of, runs.plain));
    lines.push(`${method} ${path}`);
    lines.push(`  bare Fastify (ceiling)            ${show(bare)}   runs ${range(runs.bare)}`);
    lines.push(
      `  store, no rate limit / no cache   ${show(plain)}   ${percent(plain.rps / bare.rps)} of ceiling (per round: median ${paired(runs.plain, runs.bare)}); runs ${range(runs.plain)}`,
    );
    lines.push(
      `  store as served                   ${show(full)}   ${percent(full.rps / bare.rps)} of ceiling (per round: median ${paired(runs.full, runs.bare)}); rate limit + caching cost ${percent(1 - full.rps / plain.rps)} (per round: median ${pairedCost(runs.full)}; ${cpuCost(full)}); runs ${range(runs.full)}`,
    );
    if (runs.bareDb.length > 0) {
      const bareDb = median(runs.bareDb);
      lines.push(`  bare Fastify + node:sqlite INSERT   ${show(bareDb)}   runs ${range(runs.bareDb)}`);
      lines.push(
        `  store as served vs that route: ${percent(full.rps / bareDb.rps)} (per round: median ${paired(runs.full, runs.bareDb)}; rounds ${runs.full.map((f, i) => percent(f.rps / (runs.bareDb[i]?.rps ?? Number.NaN))).join(' ')}) (goal >= 50%)`,
      );
      // On a busy machine a run's req/s says as much about its neighbours as about it; CPU time per request does not.
      lines.push(`  the same by CPU time per request (that route's / the store's): ${percent(bareDb.cpuUs / full.cpuUs)}`);
    }
    if (runs.hooked.length > 0) {
      const hooked = median(runs.hooked);
      const behind = await pendingDeliveries();
      lines.push(
        `  store as served, 1 subscription    ${show(hooked)}   ${percent(hooked.rps / full.rps)} of the same without (per round: median ${paired(runs.hooked, runs.full)}); deliveries still pending after the last run: ${behind}; runs ${range(runs.hooked)}`,
      );
    }
    if (runs.bypass.length > 0) {
      const bypass = median(runs.bypass);
      lines.push(
        `  store as served, no-cache GETs    ${show(bypass)}   rate limit + caching cost ${percent(1 - bypass.rps / plain.rps)} (per round: median ${pairedCost(runs.bypass)}; ${cpuCost(bypass)}); runs ${range(runs.bypass)}`,
      );
    }
  }
  // The hooked store's worker delivers its backlog in the servers' process: while it does, its CPU would be
  // counted against whichever read server is under load. The reads start once it is done (or a minute on).
  if (ONLY !== 'reads' && ONLY !== 'served' && ONLY !== 'backlog') {
    const waited = await drained();
    lines.push(
      `(reads started ${waited.toFixed(1)} s after the POSTs, once the subscription's deliveries had gone out: ${await pendingDeliveries()} still pending)`,
    );
  }
  // What sync clients feel: they send Cache-Control: no-cache on every call, so every GET reads the database.
  // The peer runs the same SELECT through node:sqlite and serialises the rows, nothing else.
  for (const count of ONLY === 'served' || ONLY === 'backlog' ? [] : [100, 1000]) {
    const path = `/api/v1/products.json?count=${count}`;
    const order = ['peer', 'peerJson', 'store'] as const;
    const runs: Record<(typeof order)[number], Figures[]> = { peer: [], peerJson: [], store: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let i = 0; i < order.length; i += 1) {
        const name = order[(round + i) % order.length] ?? 'peer';
        const server = name === 'store' ? 'full' : name;
        runs[name].push(
          await load(`${origins[server]}${path}`, origins.ca, 'GET', origins.tokens[server], { 'cache-control': 'no-cache' }),
        );
      }
    }
    const peer = median(runs.peer);
    const peerJson = median(runs.peerJson);
    const store = median(runs.store);
    const ratio = (to: Figures[]) => percent(middleOf(runs.store.map((f, i) => f.rps / (to[i]?.rps ?? Number.NaN))));
    const cpuRatio = (to: Figures) => percent(to.cpuUs / store.cpuUs);
    lines.push(`GET ${path}, Cache-Control: no-cache, every field of every product`);
    lines.push(`  node:sqlite SELECT * + JSON.stringify  ${show(peer)}   runs ${range(runs.peer)}`);
    lines.push(`  node:sqlite, SQLite writes the JSON    ${show(peerJson)}   runs ${range(runs.peerJson)}`);
    lines.push(
      `  store as served                        ${show(store)}   ${percent(store.rps / peer.rps)} of the peer (per round: median ${ratio(runs.peer)}; by CPU/req ${cpuRatio(peer)}); ` +
        `${percent(store.rps / peerJson.rps)} of the SQLite-JSON peer (per round: median ${ratio(runs.peerJson)}; by CPU/req ${cpuRatio(peerJson)}); runs ${range(runs.store)}`,
    );
  }
} finally {
  servers.disconnect();
}
console.log(
  `store REST API over HTTPS: ${CONNECTIONS} connections, median of ${ROUNDS} interleaved ${DURATION_S} s runs, SQLite, servers in their own process (CPU: that process's user + system time per request)`,
);
for (const line of lines) console.log(line);
console.log(
  'goals: store as served >= 50% of the ceiling; rate limiting + caching cost < 15% (negative: faster than without); no-cache GETs >= 70% of the node:sqlite peer',
);
