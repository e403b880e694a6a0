// What a test did besides its findings: the queries it sent with the replies it got (kept with the finished
// test, compressed), and while it runs, its activity (test cases done, queries still waiting for a reply).
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Exchange } from '@app/engine';
import type { Kysely } from 'kysely';
import type { ServiceSchema } from './tables.ts';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

/** One query of the log as stored: the engine's exchange, without what only a saved run needs. */
export type LoggedQuery = Pick<Exchange, 'testcase' | 'server' | 'qname' | 'qtype' | 'transport' | 'ms' | 'reply'> & {
  dnssec?: boolean;
  rd?: boolean;
};

export interface Activity {
  done: number;
  total: number;
  /** Queries sent and not answered yet, longest waiting first: since is ms since the epoch. */
  waiting: { server: string; qname: string; qtype: number; testcase?: string; since: number }[];
}

export function loggedQuery(exchange: Exchange): LoggedQuery {
  const { testcase, server, qname, qtype, transport, ms, reply, flags } = exchange;
  return {
    ...(testcase !== undefined && { testcase }),
    server,
    qname,
    qtype,
    transport,
    ms,
    ...(reply !== undefined && { reply }),
    ...(flags.dnssec && { dnssec: true }),
    ...(flags.rd && { rd: true }),
  };
}

export async function storeQueryLog(db: Kysely<ServiceSchema>, hashId: string, queries: readonly LoggedQuery[]): Promise<void> {
  const row = await db.selectFrom('dh_test').select('id').where('hash_id', '=', hashId).executeTakeFirst();
  if (row === undefined) return;
  const log = (await zip(JSON.stringify(queries))).toString('base64');
  await db.deleteFrom('dh_test_queries').where('test_id', '=', row.id).execute();
  await db.insertInto('dh_test_queries').values({ test_id: row.id, log }).execute();
}

/** The test's query log, or undefined when none was kept (a test run before logs were kept, or one that died). */
export async function readQueryLog(db: Kysely<ServiceSchema>, testId: number): Promise<LoggedQuery[] | undefined> {
  const row = await db.selectFrom('dh_test_queries').select('log').where('test_id', '=', testId).executeTakeFirst();
  if (row === undefined) return undefined;
  return JSON.parse((await unzip(Buffer.from(row.log, 'base64'))).toString('utf8')) as LoggedQuery[];
}

export async function writeActivity(db: Kysely<ServiceSchema>, hashId: string, activity: Activity): Promise<void> {
  // The column holds 2000 characters: the longest-waiting queries fit, the count says how many more.
  let text = JSON.stringify(activity);
  for (let keep = activity.waiting.length - 1; text.length > 2000 && keep >= 0; keep--)
    text = JSON.stringify({ ...activity, waiting: activity.waiting.slice(0, keep), more: activity.waiting.length - keep });
  await db.updateTable('dh_test').set({ activity: text }).where('hash_id', '=', hashId).where('progress', '<', 100).execute();
}

export function parseActivity(text: string | null): (Activity & { more?: number }) | undefined {
  return text === null ? undefined : (JSON.parse(text) as Activity & { more?: number });
}
