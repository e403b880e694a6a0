// Where the `store` commands keep their data, decided the same way by every command and said by each,
// so that a command run from another directory never quietly opens (or makes) another store.
import { isAbsolute, join, resolve } from 'node:path';
import { parseDatabaseUrl, redactUrl } from '@app/database';

/** The repository's `data/` folder, the one `npm start` uses: fixed, whatever the current directory. */
export const DEFAULT_DATA_DIR = resolve(import.meta.dirname, '../../../../data');

export interface StoreLocation {
  /** Absolute: the TLS certificate, the auth key and the default SQLite file live here. */
  readonly dataDir: string;
  readonly databaseUrl: string;
  /** One line for the user: which database, and why that one. */
  readonly description: string;
}

/** `--database` beats STORE_DATABASE_URL beats the SQLite file in the data directory (DATA_DIR, else the repository's data/). */
export function storeLocation(given: string | undefined, env: NodeJS.ProcessEnv = process.env): StoreLocation {
  const fromEnv = env.DATA_DIR !== undefined && env.DATA_DIR !== '';
  const dataDir = fromEnv ? resolve(env.DATA_DIR ?? '') : DEFAULT_DATA_DIR;
  const dataDirWhy = fromEnv ? `DATA_DIR=${env.DATA_DIR ?? ''}` : 'the default data directory; set DATA_DIR for another';
  const envUrl = env.STORE_DATABASE_URL !== undefined && env.STORE_DATABASE_URL !== '' ? env.STORE_DATABASE_URL : undefined;
  const [url, why] =
    given !== undefined
      ? [absoluteSqlite(given), '--database']
      : envUrl !== undefined
        ? [absoluteSqlite(envUrl), 'STORE_DATABASE_URL']
        : [`sqlite:${join(dataDir, 'store.sqlite')}`, dataDirWhy];
  return {
    dataDir,
    databaseUrl: url,
    description: `database ${url.startsWith('sqlite:') ? url : redactUrl(url)} (${why}); data directory ${dataDir}`,
  };
}

/** A relative SQLite path is made absolute here, so the message names the file that is really opened. */
function absoluteSqlite(url: string): string {
  const target = parseDatabaseUrl(url);
  // Where the database lives, not its SQL: only SQLite names a file.
  if (target.dialect !== 'sqlite' || target.path === ':memory:' || isAbsolute(target.path)) return url;
  return `sqlite:${resolve(target.path)}`;
}
