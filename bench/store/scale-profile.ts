// Profiles the server side of one `--scale` list shape: serves the store on the kept million-row PostgreSQL
// database (built by scale-build.ts) in this process, asks the shape one request at a time from a child process (so the
// client's CPU is not in the profile), and writes a CPU profile of the server while it answers, plus the answer times.
//   node bench/store/scale-profile.ts [shape id, as in scale-shapes.ts: day, category, first, offset, orders-day...] [samples] [file.cpuprofile] [count]
// count: the page size (1000, or 250 as the p99 goal's pages). NO_PROFILE=1: the times only, as the profiler's sampling
// lengthens the tail.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { scaleShapes } from './scale-shapes.ts';

const DATABASE_URL = process.env.BENCH_SCALE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/store_bench_scale';
const ROWS = 1_000_000;

if (process.argv[2] === '--client') {
  // The child: asks and reads each answer whole, as scale.ts does.
  process.once(
    'message',
    ({
      apiUrl,
      ca,
      token,
      shape,
      samples,
      categories,
      count,
    }: {
      apiUrl: string;
      ca: string;
      token: string;
      shape: string;
      samples: number;
      categories: number[];
      count: number;
    }) => {
      void (async () => {
        const dispatcher = new Agent({ connect: { ca } });
        const ask = async (path: string) => {
          const response = await request(path.startsWith('https:') ? path : `${apiUrl}${path}`, {
            dispatcher,
            headers: { 'x-ac-auth-token': token, 'cache-control': 'no-cache' },
          });
          const text = await response.body.text();
          if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${text.slice(0, 300)}`);
          return text;
        };
        const chosen = scaleShapes(
          ROWS,
          categories,
          async (path) => (JSON.parse(await ask(path)) as { next_page?: string }).next_page ?? '',
          count,
        ).find((s) => s.id === shape);
        if (chosen === undefined) throw new Error(`no shape ${shape}`);
        const times: number[] = [];
        for (let i = 0; i < samples + 5; i += 1) {
          const path = await chosen.path();
          const started = performance.now();
          await ask(path);
          if (i >= 5) times.push(performance.now() - started);
        }
        times.sort((a, b) => a - b);
        process.send!({ times });
        await dispatcher.close();
      })();
    },
  );
} else {
  const { serveStore } = await import('@app/store');
  const { createApp, createConsoleToken } = await import('@app/store/testing');
  const [shape = 'day', samplesText = '100', file = `/tmp/scale-${shape}.cpuprofile`, countText = '1000'] = process.argv.slice(2);
  const ids = scaleShapes(ROWS, [], () => Promise.resolve('')).map((s) => s.id);
  if (!ids.includes(shape)) throw new Error(`shape: one of ${ids.join(', ')}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'scale-profile-'));
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
  const storeId = Number((await client.query<{ id: number }>('SELECT min(id) AS id FROM stores')).rows[0]?.id);
  const categories = (await client.query<{ id: number }>(`SELECT id FROM categories WHERE name LIKE 'Category %'`)).rows.map((r) =>
    Number(r.id),
  );
  await client.end();
  const { app } = await createApp(store.app.storeAuth, storeId, { name: `scale profile ${Date.now()}`, kind: 'custom' });
  const token = (await createConsoleToken(store.app.storeAuth, app, { scopes: 'system' })).accessToken;
  const child = fork(new URL(import.meta.url).pathname, ['--client'], { stdio: 'inherit' });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  const profiling = process.env.NO_PROFILE === undefined;
  if (profiling) await session.post('Profiler.start');
  child.send({
    apiUrl: store.apiUrl,
    ca: store.certificate,
    token,
    shape,
    samples: Number(samplesText),
    categories,
    count: Number(countText),
  });
  const [{ times }] = (await once(child, 'message')) as [{ times: number[] }];
  if (profiling) writeFileSync(file, JSON.stringify((await session.post('Profiler.stop')).profile));
  const q = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)].toFixed(1);
  console.log(`${shape}: ${times.length} samples, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms${profiling ? `; profile ${file}` : ''}`);
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
