// Runs an import: each line of the uploaded file through the write path, its result appended to the result file
// (one line per input line, in order). Progress is recorded after every line with the result file's length, so
// an import stopped midway goes on after the last recorded line; only a line in flight when a process died
// (written, not yet recorded) is written again.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { resourceNamed } from '../model/registry.ts';
import type { BulkJob } from './bulk-job.ts';
import type { JobControl } from './job-control.ts';
import type { Progress } from './job-table.ts';
import { lineWriter, MAX_LINE_BYTES, type LineOptions } from './import-line.ts';
import { ndjsonLines } from './ndjson-lines.ts';

export interface ImportOptions extends LineOptions {
  /** After a line changed records (the response cache drops what it holds of the resource). */
  written: (resource: string) => void;
}

export async function runImport(
  job: BulkJob,
  files: { input: string; result: string },
  control: JobControl,
  options: ImportOptions,
): Promise<Progress> {
  const write = lineWriter(resourceNamed(job.resource), options);
  const out = await open(files.result, 'a+');
  let done = job.rowsDone;
  let failed = job.rowsFailed;
  let bytes = job.resultBytes;
  try {
    // What a stopped run wrote after its last recorded line goes; appends then land right behind it.
    await out.truncate(bytes);
    let seen = 0;
    for await (const line of ndjsonLines(createReadStream(files.input), MAX_LINE_BYTES)) {
      seen += 1;
      if (seen <= done) continue;
      const result = await write(line);
      if (result.status_code < 300) options.written(job.resource);
      else failed += 1;
      const encoded = Buffer.from(`${JSON.stringify(result)}\n`);
      await out.write(encoded);
      bytes += encoded.length;
      done += 1;
      await control.checkpoint({ rowsDone: done, rowsFailed: failed, resultBytes: bytes });
    }
  } finally {
    await out.close();
  }
  return { rowsDone: done, rowsFailed: failed, resultBytes: bytes };
}
