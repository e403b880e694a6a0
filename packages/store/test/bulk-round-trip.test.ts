/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// Every export imports back unchanged: an import's lines end at LF only, so a field holding U+2028, U+2029, a CR
// or any other character an export writes as itself stays one line, and each line's result names its own line.
// A property over random records (fast-check), on each database.
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import type { Job } from './support/bulk-job-answer.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

// What JSON writes as itself inside a string and a line reader may take for the end of a line.
const BREAKERS = ['\u2028', '\u2029', '\r', '\u0085', '\u000b', '\u000c', '\u001c', '\u001d', '\u001e'];
/** Text with line breakers of every kind among other characters, never NUL (which no database's text holds). */
const text = fc
  .array(
    fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...BREAKERS, '\n', '\r\n', ' ', '"', '\\', '\u00e9', '\u{1f600}') },
      { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((parts) => parts.join('').replaceAll('\u0000', ''))
  .filter((value) => value.trim() !== '');

const record = fc.record({
  item_name: text,
  short_description: fc.option(text, { nil: undefined }),
  price: fc.option(
    fc.integer({ min: 0, max: 1_000_000 }).map((cents) => cents / 100),
    { nil: undefined },
  ),
});

await describeOnEachDatabase(
  'an export imports back unchanged',
  (s) => {
    let dispatcher: Agent;
    let round = 0;
    before(() => {
      dispatcher = new Agent({ connect: { ca: s.store.certificate } });
    });
    after(async () => {
      await dispatcher?.close();
    });

    async function finished(id: number): Promise<Job> {
      for (let i = 0; i < 1200; i++) {
        const reply = await s.call('GET', `/bulk_operations/${id}`);
        if (reply.json.state === 'completed' || reply.json.state === 'failed') return reply.json as Job;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.fail(`bulk operation ${id} never finished`);
    }

    async function download(url: string): Promise<Buffer> {
      const response = await request(url, { dispatcher });
      assert.equal(response.statusCode, 200);
      return Buffer.from(await response.body.arrayBuffer());
    }

    const exportOf = async (query: string): Promise<Buffer> => {
      const started = await s.call('POST', '/bulk_operations', { body: { type: 'export', resource: 'products', query } });
      assert.equal(started.status, 202, started.text);
      const job = await finished(started.json.id);
      assert.equal(job.state, 'completed', job.error ?? '');
      return gunzipSync(await download(job.result_url ?? ''));
    };

    /** The records as exported, without what any write changes. */
    const records = (file: Buffer) =>
      file
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const { updated_at: _updated, ...kept } = JSON.parse(line) as Record<string, unknown>;
          return kept;
        });

    test('random records (line breakers of every kind in their fields): export, import the file as it is, export again: the same records', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 4 }), async (drawn) => {
          round += 1;
          const tag = `RT${round}-`;
          for (const [i, fields] of drawn.entries()) {
            const made = await s.call('POST', '/products', { body: { ...fields, item_number: `${tag}${i}` } });
            assert.equal(made.status, 201, made.text);
          }
          const query = `item_number=startwith:${tag}&sort=id`;
          const exported = await exportOf(query);
          assert.equal(records(exported).length, drawn.length);

          const imported = await s.call('POST', '/bulk_operations?type=import&resource=products', {
            rawBody: exported.toString('utf8'),
            headers: { 'content-type': 'application/x-ndjson' },
          });
          assert.equal(imported.status, 202, imported.text);
          assert.equal(imported.json.rows_total, drawn.length, 'one row per exported record');
          const job = await finished(imported.json.id);
          assert.equal(job.state, 'completed', job.error ?? '');
          assert.deepEqual([job.rows_done, job.rows_failed], [drawn.length, 0]);
          const results = (await download(job.result_url ?? ''))
            .toString('utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as Record<string, unknown>);
          assert.deepEqual(
            results,
            records(exported).map((r, i) => ({ line: i + 1, status_code: 200, id: r.id })),
          );
          assert.deepEqual(records(await exportOf(query)), records(exported));
        }),
        {
          numRuns: Number(process.env.ROUND_TRIP_RUNS ?? 6),
          // The hostile round's record: a name holding U+2028, then U+2029 and a lone CR.
          examples: [[[{ item_name: 'Line\u2028separated', short_description: 'Para\u2029graph and a lone\rCR', price: 1.5 }]]],
        },
      );
    });
  },
  { webhooks: { deliver: false }, bulk: { pollMs: 50 } },
);
