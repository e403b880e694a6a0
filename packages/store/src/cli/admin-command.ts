// `store admin create --email EMAIL`: makes (or resets) a console admin. The password comes from
// STORE_ADMIN_PASSWORD or the first line of stdin, never from the command line, where `ps` shows it.
import { parseArgs } from 'node:util';
import { AdminInputError, allGroups, createAdmin } from '../auth/admins.ts';
import type { AuthContext } from '../auth/context.ts';
import type { ResourceGroup } from '../auth/scopes.ts';
import type { CommandIo } from './token-command.ts';

export const adminCreateUsage = `Usage: store admin create --email EMAIL [--access GROUPS] [--create] [--database URL]

Makes a console admin, or sets a new password for an existing one. The password is read from
STORE_ADMIN_PASSWORD, else from the first line of standard input. GROUPS (comma-separated) limits
what the admin may see: ${allGroups.join(', ')} (default: all).
The store is --database, else STORE_DATABASE_URL, else store.sqlite in DATA_DIR (default: the
repository's data/ folder, the one npm start uses); the command says which on stderr. A database
with no store yet is an error unless --create is given.`;

export async function adminCreate(
  argv: string[],
  ctx: AuthContext,
  storeId: number,
  io: CommandIo & { readPassword: () => Promise<string> },
): Promise<number> {
  let values: { email?: string; access?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { email: { type: 'string' }, access: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    io.err(`store admin create: ${(error as Error).message}\n${adminCreateUsage}`);
    return 2;
  }
  if (values.help === true) {
    io.out(adminCreateUsage);
    return 0;
  }
  if (values.email === undefined) {
    io.err(`store admin create: --email is required\n${adminCreateUsage}`);
    return 2;
  }
  const access = values.access?.split(/[\s,]+/).filter((g) => g !== '');
  const unknown = access?.filter((g) => !(allGroups as readonly string[]).includes(g)) ?? [];
  if (unknown.length > 0) {
    io.err(`store admin create: unknown access group ${unknown.join(', ')}`);
    return 2;
  }
  try {
    const admin = await createAdmin(ctx, storeId, {
      email: values.email,
      password: await io.readPassword(),
      access: access as ResourceGroup[] | undefined,
    });
    io.out(`admin ${admin.email} can sign in at /admin`);
    return 0;
  } catch (error) {
    if (!(error instanceof AdminInputError)) throw error;
    io.err(`store admin create: ${error.message}`);
    return 2;
  }
}
