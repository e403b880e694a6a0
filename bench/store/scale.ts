// `npm run bench:store -- --scale`: the list endpoints sync clients use, on PostgreSQL with 1,000,000 products
// (and their category links) and 1,000,000 orders, built once and kept (scale-build.ts; BENCH_SCALE_DATABASE_URL).
// Each query shape is asked BENCH_SCALE_SAMPLES times at count=250 (goal p99 <= 25 ms), then at count=1000 against
// PostgreSQL making the same rows' JSON in the same run (goal: at most 2x), by a client process of its own
// (scale-pages.ts): in the server's process, its reading of each 3.5 MB page ran on the server's event loop and
// counted in the server's answer time.
// Then every product is exported by a bulk job (scale-export.ts): rows/s and total seconds. `--export-only` skips
// the list endpoints, `--lists-only` the export.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent } from 'undici';
import { serveStore } from '@app/store';
import { createApp, createConsoleToken } from '@app/store/testing';
import { build, DATABASE_URL, ensureDatabase, ROWS } from './scale-build.ts';
import { measureExport } from './scale-export.ts';
import { measurePages, RATIO_GOAL, SMALL_GOAL_MS, type PagesResult, type PagesTask } from './scale-pages.ts';

const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 200);

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadAtStart = load();

if (process.argv[2] === '--client') {
  process.once('message', (task: PagesTask) => {
    void measurePages(task).then((result) => process.send?.(result, () => process.exit(0)));
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
    let measured: PagesResult | undefined;
    if (!exportOnly) {
      const child = fork(import.meta.filename, ['--client'], { stdio: 'inherit' });
      const task: PagesTask = {
        apiUrl: store.apiUrl,
        ca: store.certificate,
        token,
        categoryIds,
        databaseUrl: DATABASE_URL,
        rows: ROWS,
        samples: SAMPLES,
      };
      child.send(task);
      [measured] = (await once(child, 'message')) as [PagesResult];
    }
    if (measured !== undefined) {
      console.log(
        `\nstore list endpoints on PostgreSQL, ${ROWS.toLocaleString('en')} products and ${ROWS.toLocaleString('en')} orders, ${SAMPLES} samples per shape, one at a time, Cache-Control: no-cache, over HTTPS on loopback from a client process of its own (rate limiting off; caching on but bypassed)`,
      );
      for (const line of measured.lines) console.log(line);
      console.log(
        `goals: p99 <= ${SMALL_GOAL_MS} ms at count=250, worst ${measured.worstSmall.toFixed(1)} ms; at count=1000 at most ${RATIO_GOAL}x PostgreSQL's own JSON, worst ratio ${measured.worstRatio.toFixed(2)}. ` +
          `load (1/5/15 min) at start ${loadAtStart}, at end ${load()} (a shared machine)`,
      );
    }
    if (!process.argv.includes('--lists-only')) {
      const loadBeforeExport = load();
      const exported = await measureExport(store.apiUrl, token, dispatcher, 'products', 'sort=id');
      console.log(
        `export of every product (POST /bulk_operations, sort=id, until the job completed): ${exported.rows.toLocaleString('en')} rows in ${exported.seconds.toFixed(1)} s, ` +
          `${Math.round(exported.rowsPerSecond).toLocaleString('en')} rows/s; file ${(exported.gzipBytes / 1e6).toFixed(1)} MB gzip, ${exported.lines.toLocaleString('en')} lines read back. ` +
          `load (1/5/15 min) before it ${loadBeforeExport}, after it ${load()} (a shared machine)`,
      );
    }
  } finally {
    await dispatcher.close();
    await client.end();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
