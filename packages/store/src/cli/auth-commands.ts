// `store token create` and `store admin create`: auth records made from the shell, for scripts
// and the first setup. Both take --database (or STORE_DATABASE_URL, default sqlite:$DATA_DIR/store.sqlite).
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { migrateToLatest, openDatabase } from '@app/database';
import type { Kysely } from 'kysely';
import { adminCreate, adminCreateUsage } from './admin-command.ts';
import { loadAuthKey } from '../auth/auth-key.ts';
import { authContext, type AuthContext } from '../auth/context.ts';
import type { AuthTables } from '../auth/schema.ts';
import { tokenCreate, tokenCreateUsage, type CommandIo } from './token-command.ts';
import { ensureStore } from '../db/first-start.ts';
import { MIGRATION_PRODUCT, storeMigrations } from '../db/migrations.ts';
import type { StoreSchema } from '../db/schema.ts';

const io: CommandIo = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** Splits off --database, opens and migrates the store's database, and runs `body` with the auth context. */
async function withStore(args: string[], body: (rest: string[], ctx: AuthContext, storeId: number) => Promise<number>): Promise<number> {
  const at = args.findIndex((a) => a === '--database' || a.startsWith('--database='));
  const given = at < 0 ? undefined : args[at]?.includes('=') ? args[at]?.slice('--database='.length) : args[at + 1];
  const rest = at < 0 ? args : args.filter((_, i) => i !== at && (args[at]?.includes('=') === true || i !== at + 1));
  const dataDir = resolve(process.env.DATA_DIR ?? 'data');
  const database = await openDatabase<StoreSchema>(given ?? process.env.STORE_DATABASE_URL ?? `sqlite:${join(dataDir, 'store.sqlite')}`);
  try {
    await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
    const first = await ensureStore(database);
    if (first !== undefined) io.err(`store: made a new store; its admin is ${first.email} with password ${first.password} (shown only this once)`);
    const db = database.db as unknown as Kysely<AuthTables>;
    const store = await db.selectFrom('stores').select('id').orderBy('id').executeTakeFirstOrThrow();
    const ctx = authContext({ db, dialect: database.dialect, key: loadAuthKey({ file: join(dataDir, 'auth.key') }) });
    return await body(rest, ctx, store.id);
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

export async function tokenCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') {
    io.err(tokenCreateUsage);
    return sub === undefined || sub === '--help' ? 0 : 2;
  }
  return withStore(rest, (argv, ctx, storeId) => tokenCreate(argv, ctx, storeId, io));
}

export async function adminCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') {
    io.err(adminCreateUsage);
    return sub === undefined || sub === '--help' ? 0 : 2;
  }
  const readPassword = () => Promise.resolve(process.env.STORE_ADMIN_PASSWORD ?? '').then((p) => (p !== '' ? p : readFirstLine()));
  return withStore(rest, (argv, ctx, storeId) => adminCreate(argv, ctx, storeId, { ...io, readPassword }));
}
