// Profiles the server side of one `--scale` list shape: serves the store on the kept million-row PostgreSQL
// database (built by scale.ts) in this process, asks the shape one request at a time from a child process (so the
// client's CPU is not in the profile), and writes a CPU profile of the server while it answers, plus the answer times.
//   node bench/store/scale-profile.ts [day|category|first|offset|orders-day] [samples] [file.cpuprofile]
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';

const DATABASE_URL = process.env.BENCH_SCALE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/store_bench_scale';
const FIRST_UPDATE = Date.parse('2024-01-01T00:00:00.000Z');
const ROWS = 1_000_000;
const day = 24 * 60;
const random = (below: number) => Math.floor(Math.random() * below);
const updatedAt = (minute: number) => new Date(FIRST_UPDATE + minute * 60_000).toISOString();
const paths: Record<string, (categories: number[]) => string> = {
  day: () => ((m) => `/products?updated_at=gte:${updatedAt(m)}+AND+lt:${updatedAt(m + day)}&sort=updated_at&count=1000`)(random(ROWS - day)),
  category: (c) => `/products?primary_category_id=eq:${c[random(c.length)] ?? 1}&count=1000`,
  first: () => '/products?count=1000',
  offset: () => `/products?count=1000&page=${1 + random(ROWS / 1000 - 1)}`,
  'orders-day': () => ((m) => `/orders?updated_at=gte:${updatedAt(m)}+AND+lt:${updatedAt(m + day)}&sort=updated_at&count=1000`)(random(ROWS - day)),
};

if (process.argv[2] === '--client') {
  // The child: asks and reads each answer whole, as scale.ts does.
  process.once('message', ({ apiUrl, ca, token, shape, samples, categories }: { apiUrl: string; ca: string; token: string; shape: string; samples: number; categories: number[] }) => {
    void (async () => {
      const dispatcher = new Agent({ connect: { ca } });
      const times: number[] = [];
      for (let i = 0; i < samples + 5; i += 1) {
        const started = performance.now();
        const response = await request(`${apiUrl}${paths[shape](categories)}`, { dispatcher, headers: { 'x-ac-auth-token': token, 'cache-control': 'no-cache' } });
        const text = await response.body.text();
        if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${text.slice(0, 300)}`);
        if (i >= 5) times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      process.send!({ times });
      await dispatcher.close();
    })();
  });
} else {
  const { serveStore } = await import('@app/store');
  const { createApp, createConsoleToken } = await import('@app/store/testing');
  const [shape = 'day', samplesText = '100', file = `/tmp/scale-${shape}.cpuprofile`] = process.argv.slice(2);
  if (paths[shape] === undefined) throw new Error(`shape: one of ${Object.keys(paths).join(', ')}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'scale-profile-'));
  const store = await serveStore({ databaseUrl: DATABASE_URL, dataDir, host: '127.0.0.1', port: 0, logLevel: 'error', without: { rateLimit: true } });
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const storeId = Number((await client.query<{ id: number }>('SELECT min(id) AS id FROM stores')).rows[0]?.id);
  const categories = (await client.query<{ id: number }>(`SELECT id FROM categories WHERE name LIKE 'Category %'`)).rows.map((r) => Number(r.id));
  await client.end();
  const { app } = await createApp(store.app.storeAuth, storeId, { name: `scale profile ${Date.now()}`, kind: 'custom' });
  const token = (await createConsoleToken(store.app.storeAuth, app, { scopes: 'system' })).accessToken;
  const child = fork(new URL(import.meta.url).pathname, ['--client'], { stdio: 'inherit' });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  child.send({ apiUrl: store.apiUrl, ca: store.certificate, token, shape, samples: Number(samplesText), categories });
  const [{ times }] = (await once(child, 'message')) as [{ times: number[] }];
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  const q = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)].toFixed(1);
  console.log(`${shape}: ${times.length} samples, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms; profile ${file}`);
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
