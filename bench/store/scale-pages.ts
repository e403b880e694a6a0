// The client's side of `bench:store --scale` (a process of its own, as a sync client is): every list shape asked one
// request at a time over HTTPS with Cache-Control: no-cache, a new value each time.
// - count=250 (the largest page most clients ask for): p50 and p99 of the answer time, goal p99 <= 25 ms.
// - count=1000 (3.5 MB pages): each page, then PostgreSQL itself making the same rows' JSON (row_to_json of every
//   column, the rows found by the ids the page answered, in its order), over a connection of this process; the
//   ratio of the two medians and of the two p99s, goal <= 2. The baseline finds its rows by primary key, which is
//   never slower than the page's own filter, so the ratio leans against the store.
import pg from 'pg';
import { Agent, request } from 'undici';
import { scaleShapes } from './scale-shapes.ts';

export interface PagesTask {
  apiUrl: string;
  ca: string;
  token: string;
  categoryIds: number[];
  databaseUrl: string;
  rows: number;
  samples: number;
}

export interface PagesResult {
  lines: string[];
  /** The worst p99 at count=250, ms. */
  worstSmall: number;
  /** The worst ratio (store / PostgreSQL) at count=1000, of medians and of p99s. */
  worstRatio: number;
}

export const SMALL_GOAL_MS = 25;
export const RATIO_GOAL = 2;

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
const sortedCopy = (times: readonly number[]) => [...times].sort((a, b) => a - b);
const ms = (value: number) => `${value.toFixed(1).padStart(6)} ms`;

/** The same rows' JSON as PostgreSQL makes it: every column but the store's own stored JSON, in the page's order. */
async function baselineOf(client: pg.Client): Promise<(table: string, ids: readonly number[]) => Promise<number>> {
  const columns = new Map<string, string>();
  for (const table of ['products', 'orders']) {
    const names = (
      await client.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 AND column_name NOT LIKE '\\_\\_json%' ORDER BY ordinal_position`,
        [table],
      )
    ).rows.map((row) => `r."${row.name.replaceAll('"', '""')}"`);
    columns.set(table, names.join(', '));
  }
  return async (table, ids) => {
    const started = performance.now();
    const result = await client.query<{ json: string }>({
      text: `SELECT coalesce(json_agg(row_to_json(t) ORDER BY t.ord), '[]')::text AS json
             FROM (SELECT x.ord, ${columns.get(table) ?? '*'} FROM unnest($1::int[]) WITH ORDINALITY AS x(id, ord) JOIN ${table} r ON r.id = x.id) t`,
      values: [ids],
    });
    const took = performance.now() - started;
    if (typeof result.rows[0]?.json !== 'string') throw new Error(`no JSON from PostgreSQL for ${table}`);
    return took;
  };
}

export async function measurePages(task: PagesTask): Promise<PagesResult> {
  const dispatcher = new Agent({ connect: { ca: task.ca } });
  const client = new pg.Client({ connectionString: task.databaseUrl });
  await client.connect();
  const baseline = await baselineOf(client);

  /** The answer time; the body is read whole, and parsed only when asked (untimed). */
  async function get(path: string): Promise<{ ms: number; json: () => Record<string, unknown> }> {
    const started = performance.now();
    const response = await request(path.startsWith('https:') ? path : `${task.apiUrl}${path}`, {
      dispatcher,
      headers: { 'x-ac-auth-token': task.token, 'cache-control': 'no-cache' },
    });
    const text = await response.body.text();
    const took = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${text.slice(0, 300)}`);
    return { ms: took, json: () => JSON.parse(text) as Record<string, unknown> };
  }
  const nextPageOf = async (path: string) => ((await get(path)).json().next_page as string | undefined) ?? '';

  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    console.log(line);
  };
  let worstSmall = 0;
  say(`count=250: p99 goal <= ${SMALL_GOAL_MS} ms`);
  for (const shape of scaleShapes(task.rows, task.categoryIds, nextPageOf, 250)) {
    // A few untimed calls first: connections, prepared plans, the pages the database reads most.
    for (let i = 0; i < 5; i += 1) await get(await shape.path());
    const times: number[] = [];
    for (let i = 0; i < task.samples; i += 1) times.push((await get(await shape.path())).ms);
    const sorted = sortedCopy(times);
    const p99 = quantile(sorted, 0.99);
    worstSmall = Math.max(worstSmall, p99);
    say(`  ${shape.name.padEnd(92)} p50 ${ms(quantile(sorted, 0.5))}  p99 ${ms(p99)}${p99 > SMALL_GOAL_MS ? '  (over the goal)' : ''}`);
  }

  let worstRatio = 0;
  say(`count=1000: the store's page against PostgreSQL making the same rows' JSON, ratio goal <= ${RATIO_GOAL}`);
  for (const shape of scaleShapes(task.rows, task.categoryIds, nextPageOf, 1000)) {
    const table = shape.id.startsWith('orders') ? 'orders' : 'products';
    const one = async () => {
      const page = await get(await shape.path());
      const ids = ((page.json()[table] as { id: number }[] | undefined) ?? []).map((row) => row.id);
      return { store: page.ms, postgres: await baseline(table, ids), rows: ids.length };
    };
    for (let i = 0; i < 5; i += 1) await one();
    const store: number[] = [];
    const postgres: number[] = [];
    let rows = 0;
    for (let i = 0; i < task.samples; i += 1) {
      const sample = await one();
      store.push(sample.store);
      postgres.push(sample.postgres);
      rows += sample.rows;
    }
    const [s, p] = [sortedCopy(store), sortedCopy(postgres)];
    const ratio50 = quantile(s, 0.5) / quantile(p, 0.5);
    const ratio99 = quantile(s, 0.99) / quantile(p, 0.99);
    worstRatio = Math.max(worstRatio, ratio50, ratio99);
    say(
      `  ${shape.name.padEnd(92)} ${String(Math.round(rows / task.samples)).padStart(4)} rows  store p50 ${ms(quantile(s, 0.5))} p99 ${ms(quantile(s, 0.99))}` +
        `  PostgreSQL p50 ${ms(quantile(p, 0.5))} p99 ${ms(quantile(p, 0.99))}  ratio p50 ${ratio50.toFixed(2)} p99 ${ratio99.toFixed(2)}` +
        `${Math.max(ratio50, ratio99) > RATIO_GOAL ? '  (over the goal)' : ''}`,
    );
  }
  await client.end();
  await dispatcher.close();
  return { lines, worstSmall, worstRatio };
}
