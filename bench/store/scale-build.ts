// The million-row PostgreSQL database of `bench:store --scale` (scale.ts, scale-profile.ts): made once, by SQL inside
// the database, and kept for the next run. Run alone (`node bench/store/scale-build.ts`) it builds and stops.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { serveStore } from '@app/store';
import { FIRST_UPDATE } from './scale-shapes.ts';

export const DATABASE_URL = process.env.BENCH_SCALE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/store_bench_scale';
export const ROWS = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000);
const CATEGORIES = 1000;
const BATCH = 100_000;

export async function ensureDatabase(): Promise<void> {
  const url = new URL(DATABASE_URL);
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new pg.Client({ connectionString: Object.assign(new URL(DATABASE_URL), { pathname: '/postgres' }).toString() });
  await admin.connect();
  if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 0)
    await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  await admin.end();
}

/** Fills the tables unless an earlier run did (the marker table says how many rows it built). */
export async function build(client: pg.Client): Promise<void> {
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

if (import.meta.filename === process.argv[1]) {
  await ensureDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-scale-build-'));
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
  try {
    await build(client);
  } finally {
    await client.end();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
