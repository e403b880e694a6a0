// `store token create --app NAME --scopes ...`: a non-expiring token for scripts, printed once.
import { parseArgs } from 'node:util';
import { createApp, findApp, listApps } from '../auth/apps.ts';
import type { AuthContext } from '../auth/context.ts';
import { parseScopes, ScopeError, scopeGroups } from '../auth/scopes.ts';
import { createConsoleToken, TokenInputError } from '../auth/tokens.ts';

export const tokenCreateUsage = `Usage: store token create --app NAME --scopes SCOPES [--label TEXT] [--create] [--database URL]

Prints a new non-expiring API token for the app NAME. An app that does not exist is an error;
--create makes a custom app of that name (and the store itself, on a database that has none).
SCOPES is a comma- or space-separated list, for example read_catalog,orders.
Scopes: ${scopeGroups.flatMap((g) => [`read_${g}`, g]).join(' ')} settings system.
The store is --database, else STORE_DATABASE_URL, else store.sqlite in DATA_DIR (default: the
repository's data/ folder, the one npm start uses); the command says which on stderr.`;

export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Returns the exit status: 0 with the token on stdout, 2 for bad arguments. */
export async function tokenCreate(
  argv: string[],
  ctx: AuthContext,
  storeId: number,
  io: CommandIo,
  options: { create: boolean },
): Promise<number> {
  let values: { app?: string; scopes?: string; label?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { app: { type: 'string' }, scopes: { type: 'string' }, label: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    io.err(`store token create: ${(error as Error).message}\n${tokenCreateUsage}`);
    return 2;
  }
  if (values.help === true) {
    io.out(tokenCreateUsage);
    return 0;
  }
  if (values.app === undefined || values.app.trim() === '' || values.scopes === undefined) {
    io.err(`store token create: --app and --scopes are required\n${tokenCreateUsage}`);
    return 2;
  }
  try {
    parseScopes(values.scopes);
    let app = await findApp(ctx, { name: values.app.trim(), storeId });
    if (app === undefined && !options.create) {
      const names = (await listApps(ctx, storeId)).map((a) => `"${a.name}"`);
      io.err(
        `store token create: this store has no app named "${values.app.trim()}" (its apps: ${names.length === 0 ? 'none yet' : names.join(', ')}); pass --create to make it`,
      );
      return 2;
    }
    if (app === undefined) {
      app = (await createApp(ctx, storeId, { name: values.app, kind: 'custom' })).app;
      io.err(`store token create: made the custom app "${app.name}" (App ID ${app.clientId})`);
    }
    const issued = await createConsoleToken(ctx, app, { scopes: values.scopes, label: values.label ?? 'Made with store token create' });
    io.out(issued.accessToken);
    return 0;
  } catch (error) {
    if (error instanceof ScopeError || error instanceof TokenInputError) {
      io.err(`store token create: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
