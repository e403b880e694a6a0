// `npm run bench:store -- --scale`: the list endpoints sync clients use, on PostgreSQL with 1,000,000 products
// (and their category links) and 1,000,000 orders. The tables are built once, by SQL inside the database, and
// kept (BENCH_SCALE_DATABASE_URL, default a database of its own on the local server) for the next run.
// Each query shape is asked BENCH_SCALE_SAMPLES times in turn over HTTPS with Cache-Control: no-cache (what sync
// clients send), one request at a time, with a new value each time; p50 and p99 of the answer time, goal p99 <= 50 ms.
// The client is a process of its own, as a sync client is: in the server's process, its reading and decrypting of
// each 3.5 MB page ran on the server's event loop and counted in the server's answer time.
// Then every product is exported by a bulk job (scale-export.ts): rows/s and total seconds. `--export-only` skips
// the list endpoints.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { serveStore } from '@app/store';
import { createApp, createConsoleToken } from '@app/store/testing';
import { measureExport } from './scale-export.ts';
import { FIRST_UPDATE, scaleShapes } from './scale-shapes.ts';

const DATABASE_URL = process.env.BENCH_SCALE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/store_bench_scale';
const ROWS = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 200);
const CATEGORIES = 1000;
const BATCH = 100_000;
const GOAL_MS = 50;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadAtStart = load();

async function ensureDatabase(): Promise<void> {
  const url = new URL(DATABASE_URL);
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new pg.Client({ connectionString: Object.assign(new URL(DATABASE_URL), { pathname: '/postgres' }).toString() });
  await admin.connect();
  if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 0)
    await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  await admin.end();
}

/** Fills the tables unless an earlier run did (the marker table says how many rows it built). */
async function build(client: pg.Client): Promise<void> {
  await client.query('CREATE TABLE IF NOT EXISTS bench_scale (rows integer NOT NULL)');
  const built = await client.query<{ rows: number }>('SELECT rows FROM bench_scale');
  if (built.rows[0]?.rows === ROWS) {
    console.log(`tables already built (${ROWS.toLocaleString('en')} products and orders), kept from an earlier run`);
    return;
  }
  if (built.rows.length > 0)
    throw new Error(`${DATABASE_URL} holds tables built for ${built.rows[0]?.rows} rows; drop that database to build ${ROWS}`);
  const started = Date.now();
  // One transaction: a build stopped halfway leaves nothing behind, and the next run starts over.
  await client.query('BEGIN');
  const at = (expression: string) =>
    `to_char(timestamp '${new Date(FIRST_UPDATE).toISOString().slice(0, 10)}' + ((${expression})::bigint * 7919 % ${ROWS}) * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"')`;
  await client.query(
    `INSERT INTO categories (name, parent_category_id, created_at, updated_at)
     SELECT 'Category ' || i, 1, ${at('i')}, ${at('i')} FROM generate_series(1, ${CATEGORIES}) AS i`,
  );
  const firstCategory = Number(
    (await client.query<{ id: number }>(`SELECT min(id) AS id FROM categories WHERE name = 'Category 1'`)).rows[0]?.id,
  );
  for (let from = 1; from <= ROWS; from += BATCH) {
    const to = Math.min(ROWS, from + BATCH - 1);
    await client.query(
      `INSERT INTO products (item_name, item_number, price, cost, quantity_on_hand, primary_category_id, product_status_id, short_description, weight, created_at, updated_at)
       SELECT 'Product ' || i, 'SKU-' || lpad(i::text, 7, '0'), (i % 10000) / 100.0 + 1, (i % 10000) / 200.0, i % 500, ${firstCategory} + i % ${CATEGORIES}, 1,
              'A product of the scale benchmark, number ' || i || ', with a description about as long as a real catalogue''s short ones.', (i % 100) / 10.0,
              ${at('i')}, ${at('i')}
       FROM generate_series(${from}, ${to}) AS i`,
    );
    await client.query(
      `INSERT INTO orders (order_status_id, grand_total, subtotal, tax_total, shipping_total, ordered_at, order_number, created_at, updated_at)
       SELECT 1 + i % 9, (i % 50000) / 100.0, (i % 50000) / 100.0, 0, 5, ${at('i')}, 'ORD-' || i, ${at('i')}, ${at('i')}
       FROM generate_series(${from}, ${to}) AS i`,
    );
    process.stdout.write(
      `\rbuilding: ${to.toLocaleString('en')} of ${ROWS.toLocaleString('en')} products and orders (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
  await client.query(
    `INSERT INTO product_categories (product_id, category_id) SELECT id, ${firstCategory} + id % ${CATEGORIES} FROM products`,
  );
  await client.query('INSERT INTO bench_scale (rows) VALUES ($1)', [ROWS]);
  await client.query('COMMIT');
  // As autovacuum would soon: the visibility map lets counts read the indexes alone.
  await client.query('VACUUM ANALYZE');
  console.log(`\nbuilt in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;

interface ClientTask {
  apiUrl: string;
  ca: string;
  token: string;
  categoryIds: number[];
}

/** The client's side: every shape, timed; the lines to print and the worst p99. */
async function measureShapes({ apiUrl, ca, token, categoryIds }: ClientTask): Promise<{ lines: string[]; worst: number }> {
  const dispatcher = new Agent({ connect: { ca } });

  /** The answer time; the body is read whole but parsed only for its next page. */
  async function get(path: string): Promise<{ ms: number; nextPage: () => string }> {
    const started = performance.now();
    const response = await request(path.startsWith('https:') ? path : `${apiUrl}${path}`, {
      dispatcher,
      headers: { 'x-ac-auth-token': token, 'cache-control': 'no-cache' },
    });
    const text = await response.body.text();
    const ms = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${text.slice(0, 300)}`);
    return { ms, nextPage: () => (JSON.parse(text) as { next_page?: string }).next_page ?? '' };
  }
  // Each shape draws a new value per sample; `next` and `deep` first take the page before theirs, untimed.
  const shapes = scaleShapes(ROWS, categoryIds, async (path) => (await get(path)).nextPage());

  const lines: string[] = [];
  let worst = 0;
  for (const shape of shapes) {
    // A few untimed calls first: connections, prepared plans, the pages the database reads most.
    for (let i = 0; i < 5; i += 1) await get(await shape.path());
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) times.push((await get(await shape.path())).ms);
    times.sort((a, b) => a - b);
    const p99 = quantile(times, 0.99);
    worst = Math.max(worst, p99);
    lines.push(
      `  ${shape.name.padEnd(92)} p50 ${quantile(times, 0.5).toFixed(1).padStart(6)} ms  p99 ${p99.toFixed(1).padStart(6)} ms${p99 > GOAL_MS ? '  (over the goal)' : ''}`,
    );
    console.log(lines.at(-1));
  }
  await dispatcher.close();
  return { lines, worst };
}

if (process.argv[2] === '--client') {
  process.once('message', (task: ClientTask) => {
    void measureShapes(task).then((result) => process.send?.(result, () => process.exit(0)));
  });
} else {
  await ensureDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  // Serving migrates first, so the tables (and their indexes, as a real store has them) exist before they are filled.
  const store = await serveStore({
    databaseUrl: DATABASE_URL,
    dataDir,
    host: '127.0.0.1',
    port: 0,
    logLevel: 'error',
    without: { rateLimit: true },
  });
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const dispatcher = new Agent({ connect: { ca: store.certificate } });
  try {
    await build(client);
    const storeId = Number((await client.query<{ id: number }>('SELECT min(id) AS id FROM stores')).rows[0]?.id);
    const { app } = await createApp(store.app.storeAuth, storeId, { name: `scale bench ${Date.now()}`, kind: 'custom' });
    const token = (await createConsoleToken(store.app.storeAuth, app, { scopes: 'system' })).accessToken;
    const categoryIds = (await client.query<{ id: number }>(`SELECT id FROM categories WHERE name LIKE 'Category %'`)).rows.map((r) =>
      Number(r.id),
    );
    const exportOnly = process.argv.includes('--export-only');
    let measured = { lines: [] as string[], worst: 0 };
    if (!exportOnly) {
      const child = fork(import.meta.filename, ['--client'], { stdio: 'inherit' });
      const task: ClientTask = { apiUrl: store.apiUrl, ca: store.certificate, token, categoryIds };
      child.send(task);
      [measured] = (await once(child, 'message')) as [typeof measured];
    }
    const { lines, worst } = measured;
    const loadBeforeExport = load();
    const exported = await measureExport(store.apiUrl, token, dispatcher, 'products', 'sort=id');
    if (!exportOnly) {
      console.log(
        `\nstore list endpoints on PostgreSQL, ${ROWS.toLocaleString('en')} products and ${ROWS.toLocaleString('en')} orders, ${SAMPLES} samples per shape, one at a time, Cache-Control: no-cache, over HTTPS on loopback from a client process of its own (rate limiting off; caching on but bypassed)`,
      );
      for (const line of lines) console.log(line);
      console.log(
        `goal: p99 <= ${GOAL_MS} ms for every shape; worst p99 ${worst.toFixed(1)} ms. load (1/5/15 min) at start ${loadAtStart}, at end ${load()} (a shared machine)`,
      );
    }
    console.log(
      `export of every product (POST /bulk_operations, sort=id, until the job completed): ${exported.rows.toLocaleString('en')} rows in ${exported.seconds.toFixed(1)} s, ` +
        `${Math.round(exported.rowsPerSecond).toLocaleString('en')} rows/s; file ${(exported.gzipBytes / 1e6).toFixed(1)} MB gzip, ${exported.lines.toLocaleString('en')} lines read back. ` +
        `load (1/5/15 min) before it ${loadBeforeExport}, after it ${load()} (a shared machine)`,
    );
  } finally {
    await dispatcher.close();
    await client.end();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
