// A finished test's findings as stored: one row per test holding all of them (JSON, gzip, base64),
// which takes about a tenth of the room of a row per finding with its index entries (bench:batch:
// 42 kB a test as rows). Tests finished before migration 0011 keep their rows in dh_result_entry.
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Finding } from '@app/engine';
import type { Kysely } from 'kysely';
import type { ResultEntryTable, ServiceSchema } from './tables.ts';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

export type ResultEntryRow = Omit<ResultEntryTable, 'id' | 'test_id'>;

/** module, testcase, tag, level, args, timestamp: in emission order. */
type Packed = [string, string, string, string, Record<string, unknown>, number][];

export async function packEntries(entries: readonly Finding[]): Promise<string> {
  const packed: Packed = entries.map((e) => [e.module, e.testcase, e.tag, e.level, e.args, e.timestamp]);
  return (await zip(JSON.stringify(packed))).toString('base64');
}

export async function unpackEntries(text: string): Promise<ResultEntryRow[]> {
  const packed = JSON.parse((await unzip(Buffer.from(text, 'base64'))).toString('utf8')) as Packed;
  return packed.map(([module, testcase, tag, level, args, timestamp]) => ({
    module,
    testcase,
    tag,
    level,
    args: JSON.stringify(args),
    timestamp,
  }));
}

export async function resultEntries(db: Kysely<ServiceSchema>, testRowId: number): Promise<ResultEntryRow[]> {
  const row = await db.selectFrom('dh_test_result').select('entries').where('test_id', '=', testRowId).executeTakeFirst();
  if (row !== undefined) return unpackEntries(row.entries);
  return db
    .selectFrom('dh_result_entry')
    .select(['module', 'testcase', 'tag', 'level', 'args', 'timestamp'])
    .where('test_id', '=', testRowId)
    .orderBy('id')
    .execute();
}
