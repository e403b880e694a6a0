// The API with a big history, on PostgreSQL: p50/p99 of get_test_history (a domain with 1,000
// tests), get_batch_job_result and batch_status (a 10,000-test batch) and test_progress, each under autocannon, with
// ROWS synthetic finished tests (default 1,000,000) inserted directly in SQL. The filled database is
// kept (bench_history_<rows>) and reused by the next run; --fresh fills it anew.
//   npm run bench:history [-- --rows 1000000] [--seconds 10] [--connections 10] [--fresh]
// Goal: p99 ≤ 50 ms for each. Result entries are not made: none of the three reads them. Each line
// also gives the service's CPU time per request; one line asks for a random domain's history each
// time, the path where no kept answer serves.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { migrateToLatest, openDatabase } from '@app/database';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { batchProgressAtRevision, batchRevision, migrations, PRODUCT, type ServiceSchema } from '@app/service';

const { values: options } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    fresh: { type: 'boolean', default: false },
  },
});
const rows = Number(options.rows);
const busyTests = 1000;
const batchTests = 10_000;
if (!(rows >= busyTests + batchTests)) throw new Error(`--rows must be at least ${busyTests + batchTests}`);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `bench_history_${rows}`;
const url = adminUrl.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
console.log(`bench:history — ${rows} finished tests on PostgreSQL; load at start ${load()}`);

const admin = await openDatabase(adminUrl);
const exists =
  Number((await sql<{ n: string }>`select count(*) as n from pg_database where datname = ${name}`.execute(admin.db)).rows[0]?.n) === 1;
if (exists && options.fresh) await sql.raw(`DROP DATABASE ${name} WITH (FORCE)`).execute(admin.db);
if (!exists || options.fresh) await sql.raw(`CREATE DATABASE ${name}`).execute(admin.db);
await admin.close();

const database = await openDatabase<ServiceSchema>(url);
await migrateToLatest(database, PRODUCT, migrations);
const db = database.db;
const have = Number(
  (
    await db
      .selectFrom('dh_test')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
  ).n,
);
if (have !== rows) {
  const filling = performance.now();
  await db.deleteFrom('dh_test').execute();
  await db.deleteFrom('dh_batch').execute();
  const { id: batchId } = await db
    .insertInto('dh_batch')
    .values({ username: 'bench', created_at: '2026-01-01T00:00:00.000Z' })
    .returning('id')
    .executeTakeFirstOrThrow();
  // Test 1–1,000 belong to busy.example; 1,001–11,000 make the batch; the rest spread over 100,000 domains.
  const params = JSON.stringify({
    domain: 'x',
    ipv4: true,
    ipv6: true,
    nameservers: [],
    ds_info: [],
    profile: 'default',
    priority: 10,
    queue: 0,
  });
  await sql`
    insert into dh_test (hash_id, domain, batch_id, created_at, started_at, ended_at, priority, queue, progress, fingerprint, undelegated, profile, params, overall_result, agent, attempts)
    select substr(md5(i::text), 1, 16),
      case when i <= ${busyTests} then 'busy.example' else 'h' || (i % 100000) || '.example' end,
      case when i > ${busyTests} and i <= ${busyTests + batchTests} then ${batchId}::integer end,
      to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      to_char(timestamp '2026-01-01' + (i + 5) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      5, 0, 100, md5('h' || (i % 100000)), false, 'default', ${params}, 'ok', 'bench', 1
    from generate_series(1, ${rows}) as i`.execute(db);
  console.log(`filled ${rows} rows in ${((performance.now() - filling) / 1000).toFixed(1)} s (kept as database ${name} for the next run)`);
} else {
  console.log(`reusing database ${name} (${rows} rows)`);
}
// As autovacuum would in time: index-only scans need the visibility map.
await sql`vacuum analyze dh_test`.execute(db);
const batch = await db.selectFrom('dh_batch').select('id').executeTakeFirstOrThrow();
const oneTest = await db.selectFrom('dh_test').select('hash_id').where('domain', '=', 'busy.example').limit(1).executeTakeFirstOrThrow();
const size = (await sql<{ bytes: string }>`select pg_total_relation_size('dh_test') as bytes`.execute(db)).rows[0]?.bytes;
// get_batch_job_result's reads in the database alone (one connection, the mean of 200 after 20 to
// warm up): the statement before migration 0008 (string_agg ordered inside the aggregate), today's
// full read (a sorted subquery: a batch that moved since the last call), and the revision check that
// is all a batch that has not moved costs.
const meanMs = async (read: () => Promise<unknown>): Promise<number> => {
  for (let i = 0; i < 20; i++) await read();
  const started = performance.now();
  for (let i = 0; i < 200; i++) await read();
  return (performance.now() - started) / 200;
};
const before0008 = await meanMs(() =>
  sql`
  select exists (select 1 from dh_batch where id = ${batch.id}) as found, string_agg(hash_id, ',' order by id) filter (where progress = 100) as finished,
    count(*) filter (where progress < 100) as running
  from dh_test where batch_id = ${batch.id}`.execute(db),
);
const fullRead = await meanMs(() => batchProgressAtRevision(db, 'postgres', batch.id));
const revisionCheck = await meanMs(() => batchRevision(db, batch.id));
console.log(
  `get_batch_job_result's read, 10,000 ids: ${before0008.toFixed(2)} ms as before 0008, ${fullRead.toFixed(2)} ms now (${(before0008 / fullRead).toFixed(1)}× less), ` +
    `${revisionCheck.toFixed(2)} ms for a batch that has not moved (${(before0008 / revisionCheck).toFixed(0)}× less); load ${load()}`,
);
console.log(`dh_test with its indexes: ${(Number(size) / 1e6).toFixed(0)} MB`);
await database.close();

const child = spawn(
  process.execPath,
  [new URL('../../packages/service/bin/dns-service.ts', import.meta.url).pathname, 'serve', '--listen', '127.0.0.1:0'],
  {
    env: { ...process.env, DNS_SERVICE_DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let api = '';
for await (const line of createInterface({ input: child.stdout })) {
  api = /JSON-RPC API on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
  if (api !== '') break;
}
try {
  // A call's params; `vary`, when given, makes each request's params (a different domain each time).
  const calls: [string, string, unknown, (result: unknown) => string, (() => unknown)?][] = [
    [
      'get_test_history (1,000 tests, first 200)',
      'get_test_history',
      { frontend_params: { domain: 'busy.example' } },
      (r) => `${(r as unknown[]).length} rows`,
    ],
    [
      'get_test_history (offset 800)',
      'get_test_history',
      { frontend_params: { domain: 'busy.example' }, offset: 800, limit: 200 },
      (r) => `${(r as unknown[]).length} rows`,
    ],
    // Answers are kept per domain while its history stands still: this one reads the database nearly every time.
    [
      'get_test_history (any of 100,000 domains)',
      'get_test_history',
      { frontend_params: { domain: 'h7.example' } },
      (r) => `${(r as unknown[]).length} rows`,
      () => ({ frontend_params: { domain: `h${Math.floor(Math.random() * 100_000)}.example` } }),
    ],
    [
      'get_batch_job_result (10,000 tests)',
      'get_batch_job_result',
      { batch_id: batch.id },
      (r) => `${(r as { nb_finished: number }).nb_finished} finished`,
    ],
    [
      'batch_status (10,000 tests, counts)',
      'batch_status',
      { batch_id: batch.id },
      (r) => `${(r as { finished_count: number }).finished_count} finished`,
    ],
    [
      'batch_status (10,000 tests, finished ids)',
      'batch_status',
      { batch_id: batch.id, list_finished_tests: true },
      (r) => `${(r as { finished_tests: string[] }).finished_tests.length} ids`,
    ],
    ['test_progress', 'test_progress', { test_id: oneTest.hash_id }, (r) => `progress ${String(r)}`],
  ];
  // The service's own CPU time (user + system) per request: what the load on the machine moves least.
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  const serviceCpuMs = (): number => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
  };
  console.log(`${'call'.padEnd(44)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'req/s'.padStart(8)}${'CPU µs'.padStart(8)}  answer`);
  for (const [label, method, params, describe, vary] of calls) {
    const request = (p: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: p });
    const body = request(params);
    const response = (await (await fetch(api, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()) as {
      result?: unknown;
      error?: unknown;
    };
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    const cpuBefore = serviceCpuMs();
    const result = await autocannon({
      url: api,
      connections: Number(options.connections),
      duration: Number(options.seconds),
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          ...(vary === undefined ? {} : { setupRequest: (r) => ({ ...r, body: request(vary()) }) }),
        },
      ],
    });
    const cpuPerRequest = ((serviceCpuMs() - cpuBefore) * 1000) / result.requests.total;
    const errors = result.errors + result.non2xx + result.timeouts;
    console.log(
      `${label.padEnd(44)}${result.latency.p50.toFixed(1).padStart(8)}${result.latency.p99.toFixed(1).padStart(8)}${result.requests.average.toFixed(0).padStart(8)}${cpuPerRequest.toFixed(0).padStart(8)}  ` +
        `${describe(response.result)}${errors > 0 ? `; ${errors} errors` : ''}`,
    );
  }
  console.log(`(${options.connections} connections, ${options.seconds} s each; goal p99 ≤ 50 ms) load at end ${load()}`);
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
}
