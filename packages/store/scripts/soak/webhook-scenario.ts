// The webhook soak's scenario on a running cluster: subscriptions to ProductCreated at a receiver, products created
// through HAProxy at a steady rate (each with an Idempotency-Key, retried until answered, as a careful client does),
// the instance holding the most subscriptions' leases SIGKILLed (and started again), the receiver down for a while;
// then a wait until every product's event has arrived at every subscription, and the figures (webhook-checks.ts).
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '@app/database';
import { Agent, request } from 'undici';
import type { StoreSchema } from '../../src/db/schema.ts';
import type { Cluster, Instance } from '../cluster/cluster.ts';
import { soakFigures, type SoakFigures, type Timeline, type Write } from './webhook-checks.ts';
import type { SoakReceiver } from './receiver-process.ts';

export interface WebhookSoakOptions {
  cluster: Cluster;
  databaseUrl: string;
  receiver: SoakReceiver;
  /** Products created per second (each one event per subscription). */
  rate: number;
  seconds: number;
  subscriptions: number;
  /** Seconds into the load; undefined: no kill. */
  killAtS?: number;
  /** The killed instance is started again this long after. */
  restartAfterS: number;
  /** Seconds into the load the receiver goes down, and for how long; undefined: it stays up. */
  downAtS?: number;
  downForS: number;
  /** Longest wait, after the load, for every event to arrive. */
  drainLimitS: number;
  log: (line: string) => void;
}

export interface WebhookSoakResult extends SoakFigures {
  writes: number;
  acknowledged: number;
  /** Writes never answered 2xx, however often retried. */
  unanswered: number;
  killed: string | undefined;
  /** Seconds from the end of the load until every event had arrived (or the drain limit). */
  drainedS: number;
  /** Writes answered 2xx a second while the load ran: the rate asked for, unless the cluster could not keep up. */
  answeredPerS: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The receiver's clock too (it runs in its own process): milliseconds since the epoch, to the microsecond. */
const now = () => performance.timeOrigin + performance.now();
// The soak's products, apart from anything else in the database.
const PREFIX = 'whsoak-';
// Each app may make 50 calls per 10 s: 3 a second each leaves room for retries.
const CALLS_PER_APP_S = 3;

export async function runWebhookSoak(options: WebhookSoakOptions): Promise<WebhookSoakResult> {
  const { cluster, receiver, log } = options;
  const database = await openDatabase<StoreSchema>(options.databaseUrl);
  const dispatcher = new Agent({ connect: { ca: cluster.certificate }, connections: 128 });
  const writes = new Map<string, Write>();
  const pending = new Set<Promise<void>>();
  let killing: Promise<void> = Promise.resolve();
  let faults: NodeJS.Timeout[] = [];
  try {
    const tokens = await cluster.tokens(Math.ceil(options.rate / CALLS_PER_APP_S) + options.subscriptions);
    const paths = Array.from({ length: options.subscriptions }, (_, i) => `/s${i + 1}`);
    for (const [i, path] of paths.entries()) {
      const response = await request(`${cluster.apiUrl}/webhooks`, {
        method: 'POST',
        dispatcher,
        headers: { 'x-ac-auth-token': tokens[i] ?? '', 'content-type': 'application/json' },
        body: JSON.stringify({ event_type: 'ProductCreated', url: `https://127.0.0.1:${receiver.port}${path}` }),
      });
      const text = await response.body.text();
      if (response.statusCode !== 201) throw new Error(`subscribing ${path}: ${response.statusCode} ${text}`);
    }
    const writers = tokens.slice(options.subscriptions);
    const loadEnds = now() + options.seconds * 1000;
    // A write is retried past the end of the load, so one cut off by the kill at the end still settles.
    const retryUntil = loadEnds + 60_000;

    const write = async (n: number) => {
      const item = `${PREFIX}${n}`;
      const token = writers[n % writers.length] ?? '';
      const noted: Write = { start: now(), ack: undefined };
      writes.set(item, noted);
      while (now() < retryUntil) {
        try {
          const response = await request(`${cluster.apiUrl}/products`, {
            method: 'POST',
            dispatcher,
            headers: { 'x-ac-auth-token': token, 'content-type': 'application/json', 'idempotency-key': item },
            body: JSON.stringify({ item_name: `Soak ${n}`, item_number: item, price: 1 }),
          });
          await response.body.dump();
          if (response.statusCode === 201) {
            noted.ack = now();
            return;
          }
          if (response.statusCode < 500 && response.statusCode !== 409 && response.statusCode !== 429)
            throw new Error(`POST /products: ${response.statusCode}`);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('POST /products')) throw error;
          // The connection was cut (a killed instance): sent again with its key.
        }
        await sleep(250 + Math.random() * 250);
      }
    };

    const startedAt = now();
    const timeline: Timeline = {};
    let killed: Instance | undefined;
    if (options.killAtS !== undefined) {
      faults.push(
        setTimeout(() => {
          killing = (async () => {
            killed = await leaseHolder(database, cluster.instances);
            timeline.killAt = now();
            log(`SIGKILL ${killed.name} (it held the most leases) at ${options.killAtS} s`);
            await killed.kill();
            await sleep(options.restartAfterS * 1000);
            await killed.start();
            log(`${killed.name} started again`);
          })();
        }, options.killAtS * 1000),
      );
    }
    if (options.downAtS !== undefined) {
      faults.push(
        setTimeout(() => {
          timeline.downAt = now();
          log(`receiver down at ${options.downAtS} s for ${options.downForS} s`);
          void receiver.down();
        }, options.downAtS * 1000),
        setTimeout(
          () =>
            void receiver.start().then(() => {
              timeline.upAt = now();
              log('receiver up again');
            }),
          (options.downAtS + options.downForS) * 1000,
        ),
      );
    }

    // Open loop: as many writes begun as the rate says by now, whatever the earlier ones' answers.
    let begun = 0;
    while (now() < loadEnds) {
      const due = Math.floor(((now() - startedAt) / 1000) * options.rate);
      for (; begun < due; begun += 1) {
        const running = write(begun).finally(() => pending.delete(running));
        pending.add(running);
      }
      await sleep(10);
    }
    log(`load over: ${begun} writes begun, ${pending.size} still waiting for an answer`);
    await Promise.all(pending);
    await killing;
    const loadOver = now();

    // Every product the database holds had its event: wait until each subscription got each one.
    const producedRows = async () =>
      await sql<{ item_number: string; seq: number | string | null }>`
        select p.item_number, e.seq from products p
        left join event_log e on e.resource = 'products' and e.event_type = 'ProductCreated' and e.record_id = p.id
        where p.item_number like ${`${PREFIX}%`}`.execute(database.db);
    let rows = (await producedRows()).rows;
    for (;;) {
      const distinct = await receiver.distinct();
      const done = paths.every((path) => (distinct[path] ?? 0) >= rows.length);
      if (done || now() - loadOver > options.drainLimitS * 1000) break;
      await sleep(500);
      rows = (await producedRows()).rows;
    }
    const drainedS = (now() - loadOver) / 1000;
    // A repeat, if any, would come within a worker's next look.
    await sleep(2000);
    // The log gives events their place (seq) when it is read: read it until every one has one.
    for (let i = 0; i < 20; i += 1) {
      const unnumbered = await database.db
        .selectFrom('event_log')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('seq', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(unnumbered.n) === 0) break;
      const response = await request(`${cluster.apiUrl}/events?count=1`, { dispatcher, headers: { 'x-ac-auth-token': tokens[0] ?? '' } });
      await response.body.dump();
    }
    rows = (await producedRows()).rows;
    const produced = new Map(rows.map((row) => [row.item_number, row.seq === null ? Infinity : Number(row.seq)]));
    const acknowledged = [...writes.values()].filter((w) => w.ack !== undefined).length;
    return {
      ...soakFigures(paths, produced, writes, await receiver.arrivals(), timeline),
      writes: writes.size,
      acknowledged,
      unanswered: writes.size - acknowledged,
      killed: killed?.name,
      drainedS,
      answeredPerS: [...writes.values()].filter((w) => w.ack !== undefined && w.ack <= loadEnds).length / options.seconds,
    };
  } finally {
    for (const fault of faults) clearTimeout(fault);
    faults = [];
    await killing.catch(() => undefined);
    await Promise.allSettled(pending);
    await dispatcher.close();
    await database.close();
  }
}

/** The running instance whose delivery workers hold the most subscriptions' leases (a worker's name starts with its pid). */
async function leaseHolder(database: { db: Kysely<StoreSchema> }, instances: readonly Instance[]): Promise<Instance> {
  const rows = await database.db.selectFrom('webhooks').select('lease_owner').where('lease_until', '>', new Date().toISOString()).execute();
  const held = new Map<number, number>();
  for (const row of rows) {
    const pid = Number(String(row.lease_owner).split('-')[0]);
    held.set(pid, (held.get(pid) ?? 0) + 1);
  }
  const running = instances.filter((instance) => instance.running);
  const ranked = running.toSorted((a, b) => (held.get(b.pid ?? -1) ?? 0) - (held.get(a.pid ?? -1) ?? 0));
  const chosen = ranked[0];
  if (chosen === undefined) throw new Error('no instance is running');
  return chosen;
}
