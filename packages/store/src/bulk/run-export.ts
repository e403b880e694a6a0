// Runs an export: every record the query matches, page after page (by keyset where the sort allows, as the
// list's next_page does; by offset for sorts on fields that may be empty), one JSON object a line (the shape the
// list endpoint answers, encrypted fields left out), gzip-compressed into the job's file. An export stopped
// midway starts over on the next run: its file is written aside and put in place only when whole.
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';
import type { StoreDatabase } from '../db/schema.ts';
import type { FilterValue } from '../model/query-language.ts';
import { resourceNamed } from '../model/registry.ts';
import { recordsOf } from '../records/records.ts';
import { encryptedFieldsOf } from '../records/row-shape.ts';
import type { BulkJob } from './bulk-job.ts';
import { exportQuery } from './export-query.ts';
import type { JobControl } from './job-control.ts';
import type { Progress } from './job-table.ts';

export async function runExport(
  database: StoreDatabase,
  job: BulkJob,
  file: string,
  control: JobControl,
  pageSize?: number,
): Promise<Progress> {
  const resource = resourceNamed(job.resource);
  const query = exportQuery(resource, job.query ?? '', pageSize);
  const records = recordsOf(database, resource);
  const hidden = encryptedFieldsOf(resource);
  let rows = 0;

  async function* lines(): AsyncGenerator<string> {
    let after: readonly FilterValue[] | undefined;
    for (let number = 1; ; number += 1) {
      const page = await records.list({ ...query, page: after === undefined ? number : 1, after }, undefined, { uncounted: true });
      const texts =
        page.texts ??
        page.rows.map((row) => {
          for (const name of hidden) delete row[name];
          return JSON.stringify(row);
        });
      if (texts.length > 0) yield `${texts.join('\n')}\n`;
      rows += texts.length;
      await control.checkpoint({ rowsDone: rows, rowsFailed: 0, resultBytes: 0 });
      if (!page.hasMore) return;
      after = page.nextAfter;
    }
  }

  const partial = `${file}.part`;
  // The fastest level: an export is read once, and compressing harder costs more time than it saves in transfer.
  try {
    await pipeline(Readable.from(lines()), createGzip({ level: constants.Z_BEST_SPEED }), createWriteStream(partial));
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  await rename(partial, file);
  const progress = { rowsDone: rows, rowsFailed: 0, resultBytes: (await stat(file)).size };
  await control.checkpoint(progress);
  return progress;
}
