// `store token create` and `store admin create`: auth records made from the shell, for scripts
// and the first setup. Both take --database and --create, and say which store they work on (store-location.ts).
import { createInterface } from 'node:readline';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, parseDatabaseUrl } from '@app/database';
import type { Kysely } from 'kysely';
import { adminCreate, adminCreateUsage } from './admin-command.ts';
import { loadAuthKey } from '../auth/auth-key.ts';
import { authContext, type AuthContext } from '../auth/context.ts';
import type { AuthTables } from '../auth/schema.ts';
import { tokenCreate, tokenCreateUsage, type CommandIo } from './token-command.ts';
import { ensureStore } from '../db/first-start.ts';
import { storeLocation } from './store-location.ts';
import { migrateStore } from '../db/migrations.ts';
import type { StoreSchema } from '../db/schema.ts';

const io: CommandIo = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** Options every command that opens the store takes, wherever they stand on the line. */
function splitStoreOptions(args: string[]): { database: string | undefined; create: boolean; rest: string[] } {
  const rest: string[] = [];
  let database: string | undefined;
  let create = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--create') create = true;
    else if (arg.startsWith('--database=')) database = arg.slice('--database='.length);
    else if (arg === '--database') database = args[++i];
    else rest.push(arg);
  }
  return { database, create, rest };
}

// Said after the line that names the database.
const noStoreYet = `store: there is no store in that database yet. \`store serve\` makes one on its first start;
  pass --create to make it here, or point DATA_DIR or --database at the store you meant.`;

/**
 * Opens and migrates the store's database, says which one it is, and runs \`body\` with the auth context.
 * A database without a store is an error unless --create is given: a mistyped path must not make a second store.
 */
async function withStore(
  args: string[],
  body: (rest: string[], ctx: AuthContext, storeId: number, create: boolean) => Promise<number>,
): Promise<number> {
  const { database: given, create, rest } = splitStoreOptions(args);
  const location = storeLocation(given);
  io.err(`store: ${location.description}`);
  const target = parseDatabaseUrl(location.databaseUrl);
  // Where the database lives, not its SQL: only a SQLite file can be missing, and opening it would make it.
  if (!create && target.dialect === 'sqlite' && target.path !== ':memory:' && !existsSync(target.path)) {
    io.err(noStoreYet);
    return 2;
  }
  const database = await openDatabase<StoreSchema>(location.databaseUrl);
  try {
    await migrateStore(database);
    const db = database.db as unknown as Kysely<AuthTables>;
    if (!create && (await db.selectFrom('stores').select('id').executeTakeFirst()) === undefined) {
      io.err(noStoreYet);
      return 2;
    }
    const first = await ensureStore(database);
    if (first !== undefined)
      io.err(`store: made a new store; its admin is ${first.email} with password ${first.password} (shown only this once)`);
    const store = await db.selectFrom('stores').select('id').orderBy('id').executeTakeFirstOrThrow();
    const ctx = authContext({ db, dialect: database.dialect, key: loadAuthKey({ file: join(location.dataDir, 'auth.key') }) });
    return await body(rest, ctx, store.id, create);
  } finally {
    await database.close();
  }
}

function readFirstLine(): Promise<string> {
  return new Promise((done) => {
    const lines = createInterface({ input: process.stdin });
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      done(line);
    });
    lines.once('close', () => {
      if (!answered) done('');
    });
  });
}

const asksHelp = (args: string[]) => args.includes('--help') || args.includes('-h');

export async function tokenCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') {
    io.err(tokenCreateUsage);
    return sub === undefined || sub === '--help' ? 0 : 2;
  }
  if (asksHelp(rest)) {
    io.out(tokenCreateUsage);
    return 0;
  }
  return withStore(rest, (argv, ctx, storeId, create) => tokenCreate(argv, ctx, storeId, io, { create }));
}

export async function adminCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') {
    io.err(adminCreateUsage);
    return sub === undefined || sub === '--help' ? 0 : 2;
  }
  if (asksHelp(rest)) {
    io.out(adminCreateUsage);
    return 0;
  }
  const readPassword = () => Promise.resolve(process.env.STORE_ADMIN_PASSWORD ?? '').then((p) => (p !== '' ? p : readFirstLine()));
  return withStore(rest, (argv, ctx, storeId) => adminCreate(argv, ctx, storeId, { ...io, readPassword }));
}
