// The export of every product (POST /bulk_operations, then GET until it completes) on the scale benchmark's
// tables: total seconds from the POST to the completed job, rows/s, and the file's size; then the file is fetched
// at its signed link and its lines counted, so the figure is for a whole and correct export.
import { createGunzip } from 'node:zlib';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request, type Agent } from 'undici';

interface Job {
  id: number;
  state: string;
  rows_total: number | null;
  rows_done: number;
  error: string | null;
  result_url: string | null;
}

export interface ExportFigures {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  gzipBytes: number;
  lines: number;
}

export async function measureExport(
  apiUrl: string,
  token: string,
  dispatcher: Agent,
  resource: string,
  query: string,
): Promise<ExportFigures> {
  const headers = { 'x-ac-auth-token': token, 'content-type': 'application/json' };
  const started = performance.now();
  const posted = await request(`${apiUrl}/bulk_operations`, {
    method: 'POST',
    dispatcher,
    headers,
    body: JSON.stringify({ type: 'export', resource, query }),
  });
  const job = (await posted.body.json()) as Job;
  if (posted.statusCode !== 202) throw new Error(`POST /bulk_operations: ${posted.statusCode} ${JSON.stringify(job)}`);
  let seen = job;
  while (seen.state !== 'completed' && seen.state !== 'failed') {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const reply = await request(`${apiUrl}/bulk_operations/${job.id}`, { dispatcher, headers: { 'x-ac-auth-token': token } });
    seen = (await reply.body.json()) as Job;
    process.stdout.write(
      `\rexporting ${resource}: ${seen.rows_done.toLocaleString('en')} of ${(seen.rows_total ?? 0).toLocaleString('en')}`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write('\n');
  if (seen.state !== 'completed' || seen.result_url === null) throw new Error(`the export failed: ${seen.error ?? 'no result'}`);
  // Untimed: the file is read back whole, and its lines counted.
  const file = await request(seen.result_url, { dispatcher });
  if (file.statusCode !== 200) throw new Error(`the result link answered ${file.statusCode}`);
  let gzipBytes = 0;
  let lines = 0;
  file.body.on('data', (chunk: Buffer) => (gzipBytes += chunk.length));
  await pipeline(
    file.body,
    createGunzip(),
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
        done();
      },
    }),
  );
  if (lines !== seen.rows_done) throw new Error(`the file holds ${lines} lines, the job says ${seen.rows_done}`);
  return { rows: seen.rows_done, seconds, rowsPerSecond: seen.rows_done / seconds, gzipBytes, lines };
}
