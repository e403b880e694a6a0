// `store seed --demo` and `store reset`: a sandbox with data for trying the API, and a way back to an empty store.
// Both say which store they work on (store-location.ts) before touching it; reset asks first (or takes --yes).
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { openDatabase } from '@app/database';
import { buildStoreApp } from '../app.ts';
import { loadAuthKey } from '../auth/auth-key.ts';
import { ensureStore } from '../db/first-start.ts';
import { migrateStore } from '../db/migrations.ts';
import type { StoreDatabase, StoreSchema } from '../db/schema.ts';
import { seedDemo, SeedRefused } from '../sandbox/demo-seed.ts';
import { jobFilesRemover, jobFiles } from '../bulk/job-files.ts';
import { resetStore } from '../sandbox/store-reset.ts';
import { setDatabaseClock } from '../db/database-clock.ts';
import { advanceClockOffset, parseDuration, readClockOffset } from '../db/sandbox-clock.ts';
import { storeLocation, type StoreLocation } from './store-location.ts';

export const seedUsage = `Usage: store seed --demo [--database URL]
  Fills an empty store with a demo catalog (categories, products with variants and images as URLs), customers,
  open carts and placed orders, the same every run. Run \`store reset\` first on a store that has products.`;
export const resetUsage = `Usage: store reset [--yes] [--database URL]
  Deletes every record of the store (catalog, customers, carts, orders, content, marketing and settings records)
  and restarts their ids; admins, apps, tokens and webhook subscriptions stay. Asks first unless --yes is given.`;

/** The moment the demo data is made at, on every run. */
export const DEMO_TIME = Date.parse('2026-01-05T09:00:00.000Z');
const demoClock = () => DEMO_TIME;

interface Io {
  out(line: string): void;
  err(line: string): void;
  /** The answer to a question, one line (empty when there is none). */
  ask(question: string): Promise<string>;
}

const consoleIo: Io = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  ask: (question) =>
    new Promise((done) => {
      const lines = createInterface({ input: process.stdin, output: process.stderr });
      let answered = false;
      lines.question(question, (answer) => {
        answered = true;
        lines.close();
        done(answer);
      });
      lines.once('close', () => {
        if (!answered) done('');
      });
    }),
};

function databaseOption(args: string[]): { database: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let database: string | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg.startsWith('--database=')) database = arg.slice('--database='.length);
    else if (arg === '--database') database = args[++i];
    else rest.push(arg);
  }
  return { database, rest };
}

async function withDatabase<T>(
  location: StoreLocation,
  io: Io,
  body: (database: StoreDatabase, storeId: number) => Promise<T>,
): Promise<T> {
  const database = await openDatabase<StoreSchema>(location.databaseUrl);
  try {
    await migrateStore(database);
    const first = await ensureStore(database);
    if (first !== undefined)
      io.err(`store: made a new store; its admin is ${first.email} with password ${first.password} (shown only this once)`);
    const store = await database.db.selectFrom('stores').select('id').orderBy('id').executeTakeFirstOrThrow();
    return await body(database, Number(store.id));
  } finally {
    await database.close();
  }
}

export async function seedCommand(args: string[], io: Io = consoleIo): Promise<number> {
  const { database: given, rest } = databaseOption(args);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(seedUsage);
    return 0;
  }
  if (!rest.includes('--demo') || rest.some((arg) => arg !== '--demo')) {
    io.err(seedUsage);
    return 2;
  }
  const location = storeLocation(given);
  io.err(`store: ${location.description}`);
  return withDatabase(location, io, async (database, storeId) => {
    // A fixed clock: every run stamps the same times, so the seeded store is the same byte for byte.
    setDatabaseClock(database, demoClock);
    const app = await buildStoreApp({
      database,
      now: demoClock,
      httpsPort: () => 443,
      authKey: loadAuthKey({ file: join(location.dataDir, 'auth.key') }),
      rateLimit: false,
      cache: false,
      // The seed calls the routes in process, as a proxy on loopback that terminated TLS would.
      trustedProxies: ['127.0.0.1'],
      logLevel: 'error',
      webhooks: { deliver: false },
    });
    try {
      await app.ready();
      const counts = await seedDemo(app, database, storeId);
      io.out(
        `store: seeded the demo data: ${counts.categories} categories, ${counts.products} products (${counts.variants} variants, ${counts.pictures} pictures), ${counts.customers} customers, ${counts.carts} carts of which ${counts.orders} placed as orders, ${counts.shippingMethods} shipping methods, ${counts.coupons} coupon (SAVE10: 10% off)`,
      );
      return 0;
    } catch (error) {
      if (!(error instanceof SeedRefused)) throw error;
      io.err(`store: ${error.message}`);
      return 1;
    } finally {
      await app.close();
    }
  });
}

export async function resetCommand(args: string[], io: Io = consoleIo): Promise<number> {
  const { database: given, rest } = databaseOption(args);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(resetUsage);
    return 0;
  }
  if (rest.some((arg) => arg !== '--yes')) {
    io.err(resetUsage);
    return 2;
  }
  const location = storeLocation(given);
  io.err(`store: ${location.description}`);
  if (!rest.includes('--yes')) {
    const answer = await io.ask(
      'store: this deletes every product, category, customer, cart and order of that store. Type "reset" to go on: ',
    );
    if (answer.trim() !== 'reset') {
      io.err('store: nothing was deleted');
      return 1;
    }
  }
  return withDatabase(location, io, async (database) => {
    const removeJobFiles = await jobFilesRemover(database, jobFiles(location.dataDir));
    const rows = await resetStore(database);
    await removeJobFiles();
    io.out(`store: deleted ${rows} records; the store starts afresh (its admins, apps, tokens and webhook subscriptions are kept)`);
    return 0;
  });
}

export const clockUsage = `Usage: store sandbox clock [--advance DURATION] [--database URL]
  Shows a sandbox store's time, or moves it forward by DURATION (90s, 12h, 30d, 1d12h; units ms, s, m, h, d, w)
  for every instance serving it, within a quarter second. Only a store served with --sandbox has a movable clock.`;

export async function sandboxCommand(args: string[], io: Io = consoleIo): Promise<number> {
  const { database: given, rest } = databaseOption(args);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(clockUsage);
    return 0;
  }
  const [what, ...options] = rest;
  const advanceAt = options.indexOf('--advance');
  const advance = advanceAt === -1 ? undefined : options[advanceAt + 1];
  const ms = advance === undefined ? undefined : parseDuration(advance);
  if (what !== 'clock' || options.length !== (advanceAt === -1 ? 0 : 2) || (advance !== undefined && ms === undefined)) {
    io.err(clockUsage);
    return 2;
  }
  const location = storeLocation(given);
  io.err(`store: ${location.description}`);
  return withDatabase(location, io, async (database) => {
    if ((await readClockOffset(database.db)) === undefined) {
      io.err('store: this store is not in sandbox mode, so its clock is real time and cannot be moved (serve it once with --sandbox)');
      return 1;
    }
    const offset = ms === undefined ? ((await readClockOffset(database.db)) ?? 0) : await advanceClockOffset(database.db, ms);
    io.out(`store: sandbox time ${new Date(Date.now() + offset).toISOString()} (${offset} ms ahead of real time)`);
    return 0;
  });
}
