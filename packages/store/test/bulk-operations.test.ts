/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// Bulk jobs (issue 37 item 4): an export's file holds exactly what the list endpoint answers, an import writes each
// line as a POST would (events included) and answers each line; the result links are signed and expire; plans
// limit the jobs; and a job stopped by a restart goes on afterwards, writing every line exactly once.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { testDatabaseTargets } from '@app/database/testing';
import { Agent, request } from 'undici';
import type { StoreSchema } from '../src/db/schema.ts';
import { setPlan } from '../src/limits/plans.ts';
import { serveStore, type RunningStore } from '../src/server.ts';
import type { Job } from './support/bulk-job-answer.ts';
import { startStoreUnderTest, type Reply, type StoreUnderTest } from './support/store-under-test.ts';
import { issueTestToken } from './support/test-token.ts';
import { sqliteTarget } from './support/targets.ts';
import { startReceiver, type Receiver } from './webhooks/receiver.ts';

const ndjson = (lines: readonly unknown[]) =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';

/** Fetches a link without any token, as a plain downloader would. */
async function download(url: string, ca: string): Promise<{ status: number; type: string; body: Buffer }> {
  const dispatcher = new Agent({ connect: { ca } });
  try {
    const response = await request(url, { dispatcher });
    const body = Buffer.from(await response.body.arrayBuffer());
    return { status: response.statusCode, type: String(response.headers['content-type']), body };
  } finally {
    await dispatcher.close();
  }
}

const linesOf = (body: Buffer) =>
  body
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

for (const target of await testDatabaseTargets()) {
  describe(`bulk operations on ${target.name}`, { skip: target.skip }, () => {
    const clock = { offset: 0 };
    let s: StoreUnderTest;
    before(async () => {
      s = await startStoreUnderTest(target, {
        webhooks: { deliver: false },
        bulk: { pollMs: 50, exportPage: 2 },
        clock: () => Date.now() + clock.offset,
      });
    });
    after(async () => {
      await s?.close();
    });

    async function finished(id: number, headers: Record<string, string> = {}): Promise<Job> {
      for (let i = 0; i < 600; i++) {
        const reply = await s.call('GET', `/bulk_operations/${id}`, { headers });
        assert.equal(reply.status, 200, reply.text);
        if (reply.json.state === 'completed' || reply.json.state === 'failed') return reply.json as Job;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.fail(`bulk operation ${id} never finished`);
    }

    const startImport = (resource: string, body: string, headers: Record<string, string> = {}) =>
      s.call('POST', `/bulk_operations?type=import&resource=${resource}`, {
        rawBody: body,
        headers: { 'content-type': 'application/x-ndjson', ...headers },
      });

    test('an export holds what the list answers; importing it back updates by id, creates the rest, and answers each line', async () => {
      const made: number[] = [];
      for (let i = 0; i < 5; i++) {
        const product = await s.call('POST', '/products', {
          body: { item_name: `Round trip ${i}`, price: 10 + i, item_number: `RT-${i}` },
        });
        assert.equal(product.status, 201, product.text);
        made.push(product.json.id);
      }
      // Several pages of 2: by keyset (sort=id) and by offset (price may be empty), each the list's records in its order.
      for (const sorted of ['item_name=startwith:Round trip&sort=id', 'item_name=startwith:Round trip&sort=price']) {
        const job = await finished(
          (await s.call('POST', '/bulk_operations', { body: { type: 'export', resource: 'products', query: sorted } })).json.id,
        );
        const file = linesOf(gunzipSync((await download(job.result_url ?? '', s.store.certificate)).body));
        assert.deepEqual(file, (await s.call('GET', `/products?${sorted}&count=100`)).json.products, sorted);
      }
      const query = 'item_name=startwith:Round trip&sort=-price';
      const started = await s.call('POST', '/bulk_operations', { body: { type: 'export', resource: 'products', query } });
      assert.equal(started.status, 202, started.text);
      assert.match(String(started.headers.location), new RegExp(`/api/v1/bulk_operations/${started.json.id}$`));
      assert.equal(started.json.rows_total, 5);
      const job = await finished(started.json.id);
      assert.equal(job.state, 'completed', job.error ?? '');
      assert.equal(job.rows_done, 5);
      assert.ok(job.result_url?.startsWith('https://'), String(job.result_url));

      const file = await download(job.result_url ?? '', s.store.certificate);
      assert.equal(file.status, 200);
      assert.equal(file.type, 'application/gzip');
      const exported = linesOf(gunzipSync(file.body));
      const listed = await s.call('GET', `/products?${query}&count=100`);
      assert.deepEqual(exported, listed.json.products);
      assert.deepEqual(
        exported.map((p) => p.id),
        [...made].reverse(),
      );

      // Back in: the first two keep their id (updates), the others lose it (new records); two lines are bad.
      const events = await s.call('GET', '/events?types=ProductCreated,ProductUpdated&count=500');
      assert.equal(events.status, 200, events.text);
      assert.ok(events.json.events.length < 500, 'one page holds every event so far');
      const cursor = events.json.next as string | null;
      const lines = exported.map((p, i) => {
        const { id, item_name, price } = p;
        return i < 2 ? { id, item_name, price: 99 } : { item_name: `${String(item_name)} again`, price };
      });
      const body = ndjson([...lines.slice(0, 3), '{"item_name": "broken', '', { item_name: '', price: 'cheap' }, ...lines.slice(3)]);
      const imported = await startImport('products', body);
      assert.equal(imported.status, 202, imported.text);
      assert.equal(imported.json.rows_total, 7, 'the blank line is no record');
      const done = await finished(imported.json.id);
      assert.equal(done.state, 'completed', done.error ?? '');
      assert.equal(done.rows_done, 7);
      assert.equal(done.rows_failed, 2);
      const results = await download(done.result_url ?? '', s.store.certificate);
      assert.equal(results.status, 200);
      const answered = linesOf(results.body);
      assert.deepEqual(
        answered.map((r) => [r.line, r.status_code]),
        [
          [1, 200],
          [2, 200],
          [3, 201],
          [4, 400],
          [6, 400],
          [7, 201],
          [8, 201],
        ],
      );
      assert.deepEqual(answered[0], { line: 1, status_code: 200, id: exported[0]?.id });
      assert.deepEqual(answered[3], { line: 4, status_code: 400, message: 'Bad Request', details: 'The line is not valid JSON' });
      // As the API answers the same record sent alone.
      const alone = await s.call('POST', '/products', { body: { item_name: '', price: 'cheap' } });
      assert.equal(alone.status, 400);
      assert.deepEqual(answered[4], { line: 6, ...alone.json });
      const updated = await s.call('GET', `/products/${String(exported[1]?.id)}`);
      assert.equal(updated.json.price, 99);
      const created = await s.call('GET', `/products/${String(answered[2]?.id)}`);
      assert.equal(created.json.item_name, `${String(exported[2]?.item_name)} again`);

      // The writes sent their events as single writes do.
      const after = await s.call(
        'GET',
        `/events?types=ProductCreated,ProductUpdated&count=500${cursor === null ? '' : `&after=${cursor}`}`,
      );
      assert.equal(after.status, 200, after.text);
      const seen = (after.json.events as { event_type: string; record_id: number }[]).map((e) => [e.event_type, e.record_id]);
      const expected = answered
        .filter((r) => Number(r.status_code) < 300)
        .map((r) => [r.status_code === 201 ? 'ProductCreated' : 'ProductUpdated', r.id]);
      assert.deepEqual(seen, expected);
    });

    test('a job is listed and read with its progress; scopes decide who may start and read it', async () => {
      const readOnly = await issueTestToken(s.store.app, 1, 'read_catalog', 'Bulk reader');
      const headers = { 'x-ac-auth-token': readOnly };
      const exported = await s.call('POST', '/bulk_operations', {
        body: { type: 'export', resource: 'products', query: 'sort=id' },
        headers,
      });
      assert.equal(exported.status, 202, exported.text);
      await finished(exported.json.id, headers);
      const refused = await startImport('products', ndjson([{ item_name: 'Nope' }]), headers);
      assert.equal(refused.status, 403);
      assert.equal(refused.json.details, 'This token does not have the catalog scope this import needs');
      const orders = await s.call('POST', '/bulk_operations', { body: { type: 'export', resource: 'orders' }, headers });
      assert.equal(orders.status, 403);
      assert.equal(orders.json.details, 'This token does not have the read_orders scope this export needs');
      const ordersJob = await s.call('POST', '/bulk_operations', { body: { type: 'export', resource: 'orders' } });
      assert.equal(ordersJob.status, 202, ordersJob.text);
      assert.equal((await s.call('GET', `/bulk_operations/${ordersJob.json.id}`, { headers })).status, 403);
      const listed = await s.call('GET', '/bulk_operations', { headers });
      assert.equal(listed.status, 200);
      const ids = (listed.json.bulk_operations as Job[]).map((job) => job.id);
      assert.ok(ids.includes(exported.json.id));
      assert.ok(!ids.includes(ordersJob.json.id), 'an orders job is not listed to a catalog reader');
      // An import sent again with the same Idempotency-Key is the same job, not a second one.
      const key = { 'idempotency-key': `bulk-${target.name}` };
      const once = await startImport('categories', ndjson([{ name: 'Sent twice' }]), key);
      assert.equal(once.status, 202, once.text);
      const twice = await startImport('categories', ndjson([{ name: 'Sent twice' }]), key);
      assert.equal(twice.json.id, once.json.id);
      assert.equal(
        (await startImport('categories', ndjson([{ name: 'Something else' }]), key)).status,
        422,
        'the key was used for another body',
      );
      await finished(once.json.id);
      const all = await s.call('GET', '/bulk_operations');
      assert.equal(all.json.bulk_operations[0].id, once.json.id, 'newest first');
    });

    test('bad requests get clear errors in the error format', async () => {
      const cases: [unknown, number, string][] = [
        [{ type: 'export', resource: 'nothings' }, 400, 'resource: there is no resource "nothings"'],
        [{ resource: 'products' }, 400, 'type: one of export, import'],
        [
          { type: 'export', resource: 'products', query: 'page=2' },
          400,
          'query: page is not taken by an export, which returns every matching record',
        ],
        [{ type: 'export', resource: 'products', query: 'sort=colour' }, 400, 'sort: products has no field "colour"'],
        [{ type: 'export', resource: 'products', query: 'price=gt:cheap' }, 400, ''],
        [
          { type: 'import', resource: 'products' },
          400,
          'An import takes its lines as application/x-ndjson, one product a line, with ?type=import&resource=products',
        ],
        [[1, 2], 400, 'The body is a JSON object: {"type": "export", "resource": ..., "query": ...}'],
      ];
      for (const [body, status, details] of cases) {
        const reply = await s.call('POST', '/bulk_operations', { body });
        assert.equal(reply.status, status, `${JSON.stringify(body)}: ${reply.text}`);
        assert.deepEqual(Object.keys(reply.json), ['status_code', 'message', 'details']);
        if (details !== '') assert.equal(reply.json.details, details);
      }
      const webhooks = await startImport('webhooks', ndjson([{ url: 'https://example.com/' }]));
      assert.equal(webhooks.status, 400);
      assert.match(webhooks.json.details, /^resource: webhooks cannot be imported/);
      assert.equal((await startImport('products', '\n\n')).status, 400);
      assert.equal((await s.call('GET', '/bulk_operations/nope')).status, 404);
      assert.equal((await s.call('GET', '/bulk_operations/999999')).status, 404);

      // A line over the limit is answered on its own line; the lines around it go in.
      const huge = JSON.stringify({ item_name: 'Huge', short_description: 'x'.repeat(1024 * 1024 + 10) });
      const imported = await startImport('products', ndjson([{ item_name: 'Before huge' }, huge, { item_name: 'After huge' }]));
      assert.equal(imported.status, 202, imported.text);
      const done = await finished(imported.json.id);
      const answered = linesOf((await download(done.result_url ?? '', s.store.certificate)).body);
      assert.deepEqual(
        answered.map((r) => r.status_code),
        [201, 413, 201],
      );
      assert.match(String(answered[1]?.details), /^The line is \d+ bytes; a line holds at most 1048576$/);
    });

    test('a result link works only with its own unexpired signature', async () => {
      const started = await s.call('POST', '/bulk_operations', { body: { type: 'export', resource: 'products', query: 'sort=id' } });
      const job = await finished(started.json.id);
      const url = new URL(job.result_url ?? '');
      const fetch = async (change: (u: URL) => void) => {
        const copy = new URL(url);
        change(copy);
        const reply = await download(copy.toString(), s.store.certificate);
        return { status: reply.status, json: JSON.parse(reply.body.toString('utf8')) as { details: string } };
      };
      const signature = url.searchParams.get('signature') ?? '';
      const wrong = await fetch((u) => u.searchParams.set('signature', `${signature.slice(0, -2)}AA`));
      assert.equal(wrong.status, 403);
      assert.match(wrong.json.details, /^The signature of this link is not valid/);
      // Other spellings of the same bytes are changed signatures too: trailing junk, padding, standard base64.
      const standard = Buffer.from(signature, 'base64url').toString('base64');
      for (const respelled of [
        `${signature}!!`,
        `${signature}=`,
        `${signature}==`,
        standard,
        standard.replace(/=+$/, ''),
        ` ${signature}`,
        `${signature}.`,
      ].filter((text) => text !== signature)) {
        const reply = await fetch((u) => u.searchParams.set('signature', respelled));
        assert.equal(reply.status, 403, `signature ${respelled}`);
      }
      const missing = await fetch((u) => u.searchParams.delete('signature'));
      assert.equal(missing.status, 403);
      const longer = await fetch((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)));
      assert.equal(longer.status, 403, 'moving the expiry breaks the signature');
      const otherJob = await fetch((u) => (u.pathname = u.pathname.replace(`/${job.id}/`, `/${job.id - 1}/`)));
      assert.equal(otherJob.status, 403, 'a signature is for one job');
      assert.equal((await download(url.toString(), s.store.certificate)).status, 200);
      clock.offset = 2 * 3600 * 1000;
      try {
        const expired = await fetch(() => undefined);
        assert.equal(expired.status, 403);
        assert.match(expired.json.details, /^This link expired at /);
        // A fresh read of the job gives a fresh link.
        const fresh = (await s.call('GET', `/bulk_operations/${job.id}`)).json as Job;
        assert.equal((await download(fresh.result_url ?? '', s.store.certificate)).status, 200);
      } finally {
        clock.offset = 0;
      }
    });
  });

  describe(`bulk operations across restarts and plans on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: Awaited<ReturnType<typeof target.create>>;
    let dataDir: string;
    let store: RunningStore | undefined;
    before(async () => {
      throwaway = await target.create();
      dataDir = mkdtempSync(join(tmpdir(), 'store-bulk-test-'));
    });
    after(async () => {
      await store?.close();
      await throwaway?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const serve = (run: boolean) =>
      serveStore({
        databaseUrl: throwaway.url,
        dataDir,
        host: '127.0.0.1',
        port: 0,
        logLevel: 'silent',
        without: { rateLimit: true },
        webhooks: { deliver: false },
        bulk: { run, pollMs: 50 },
      });

    async function call(
      running: RunningStore,
      method: string,
      path: string,
      body: string | undefined,
      contentType = 'application/json',
    ): Promise<{ status: number; json: Reply['json'] }> {
      const dispatcher = new Agent({ connect: { ca: running.certificate } });
      try {
        const token = await issueTestToken(running.app, 1);
        const response = await request(`${running.apiUrl}${path}`, {
          method: method as 'GET',
          headers: { 'x-ac-auth-token': token, ...(body === undefined ? {} : { 'content-type': contentType }) },
          body,
          dispatcher,
        });
        return { status: response.statusCode, json: await response.body.json() };
      } finally {
        await dispatcher.close();
      }
    }

    test('the plan limits jobs at a time and rows per job', async () => {
      store = await serve(false);
      const database = await openDatabase<StoreSchema>(throwaway.url);
      try {
        await setPlan(database.db, 1, 'steel');
        const first = await call(store, 'POST', '/bulk_operations', JSON.stringify({ type: 'export', resource: 'categories' }));
        assert.equal(first.status, 202);
        const second = await call(store, 'POST', '/bulk_operations', JSON.stringify({ type: 'export', resource: 'categories' }));
        assert.equal(second.status, 429);
        assert.equal(
          second.json.details,
          'The Steel plan runs at most 1 bulk job at a time and 1 is queued or running; start this one when one is done',
        );
        await database.db.deleteFrom('bulk_operations').execute();
        const tooMany = await call(
          store,
          'POST',
          '/bulk_operations?type=import&resource=products',
          '{}\n'.repeat(10_001),
          'application/x-ndjson',
        );
        assert.equal(tooMany.status, 413);
        assert.equal(tooMany.json.details, 'The import holds more than 10000 lines; the Steel plan imports at most 10000 in one job');
      } finally {
        await setPlan(database.db, 1, 'gold');
        await database.close();
        await store.close();
        store = undefined;
      }
    });

    test('two instances on one database run each job once', async () => {
      const first = await serve(true);
      const second = await serve(true);
      try {
        const ids: number[] = [];
        for (let j = 0; j < 3; j++) {
          const body = ndjson(Array.from({ length: 40 }, (_, i) => ({ item_name: `Twice ${j}-${i}`, item_number: `TW-${j}-${i}` })));
          const started = await call(
            j % 2 === 0 ? first : second,
            'POST',
            '/bulk_operations?type=import&resource=products',
            body,
            'application/x-ndjson',
          );
          assert.equal(started.status, 202, JSON.stringify(started.json));
          ids.push(started.json.id as number);
        }
        for (const id of ids) {
          let job: Job | undefined;
          for (let i = 0; i < 1200 && job?.state !== 'completed' && job?.state !== 'failed'; i++) {
            job = (await call(first, 'GET', `/bulk_operations/${id}`, undefined)).json as Job;
            if (job.state !== 'completed') await new Promise((resolve) => setTimeout(resolve, 50));
          }
          assert.equal(job?.state, 'completed', JSON.stringify(job));
          const results = linesOf((await download(job?.result_url ?? '', first.certificate)).body);
          assert.equal(results.length, 40);
        }
        const database = await openDatabase<StoreSchema>(throwaway.url);
        try {
          const written = await database.db.selectFrom('products').select('item_number').where('item_number', 'like', 'TW-%').execute();
          assert.equal(written.length, 120, 'no job ran twice');
        } finally {
          await database.close();
        }
      } finally {
        await first.close();
        await second.close();
      }
    });

    test('an import stopped by a restart goes on after it and writes every line exactly once', async () => {
      const lines = 600;
      store = await serve(true);
      const body = ndjson(Array.from({ length: lines }, (_, i) => ({ item_name: `Restarted ${i}`, item_number: `RS-${i}` })));
      const started = await call(store, 'POST', '/bulk_operations?type=import&resource=products', body, 'application/x-ndjson');
      assert.equal(started.status, 202, JSON.stringify(started.json));
      const id = started.json.id as number;
      let seen: Job | undefined;
      for (let i = 0; i < 2000 && (seen?.rows_done ?? 0) === 0; i++)
        seen = (await call(store, 'GET', `/bulk_operations/${id}`, undefined)).json as Job;
      await store.close();
      store = undefined;
      const database = await openDatabase<StoreSchema>(throwaway.url);
      try {
        const stopped = await database.db.selectFrom('bulk_operations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        assert.equal(stopped.state, 'running', 'the restart came in the middle of the job');
        assert.ok(Number(stopped.rows_done) > 0 && Number(stopped.rows_done) < lines, String(stopped.rows_done));
        assert.equal(stopped.lease_owner, null, 'a clean stop gives the lease back');

        store = await serve(true);
        let job: Job | undefined;
        for (let i = 0; i < 1200 && job?.state !== 'completed' && job?.state !== 'failed'; i++) {
          job = (await call(store, 'GET', `/bulk_operations/${id}`, undefined)).json as Job;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal(job?.state, 'completed', JSON.stringify(job));
        assert.equal(job?.rows_done, lines);
        const results = linesOf((await download(job?.result_url ?? '', store.certificate)).body);
        assert.deepEqual(
          results.map((r) => r.line),
          Array.from({ length: lines }, (_, i) => i + 1),
        );
        assert.ok(results.every((r) => r.status_code === 201));
        const written = await database.db.selectFrom('products').select('item_number').where('item_number', 'like', 'RS-%').execute();
        assert.equal(written.length, lines, 'no line written twice');
        assert.equal(new Set(written.map((r) => r.item_number)).size, lines);

        // Jobs finished longer ago than files are kept go, with their files, when an instance starts (and hourly).
        const { file_key: fileKey } = await database.db
          .selectFrom('bulk_operations')
          .select('file_key')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const resultFile = join(dataDir, 'bulk', `${String(fileKey)}.results.ndjson`);
        assert.ok(existsSync(resultFile));
        assert.ok(!existsSync(join(dataDir, 'bulk', `${String(fileKey)}.input.ndjson`)), 'the upload goes once imported');
        await store.close();
        store = undefined;
        await database.db
          .updateTable('bulk_operations')
          .set({ finished_at: new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString() })
          .where('id', '=', id)
          .execute();
        store = await serve(true);
        let gone = false;
        for (let i = 0; i < 200 && !gone; i++) {
          gone = (await database.db.selectFrom('bulk_operations').select('id').where('id', '=', id).executeTakeFirst()) === undefined;
          if (!gone) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.ok(gone, 'the old job is removed');
        assert.ok(!existsSync(resultFile), 'and its file');
      } finally {
        await database.close();
      }
    });
  });
}

describe('bulk imports ask Validate* subscribers as single writes do', () => {
  let receiver: Receiver;
  let s: StoreUnderTest;
  before(async () => {
    receiver = await startReceiver();
    s = await startStoreUnderTest(await sqliteTarget(), {
      webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, replyLimitMs: 1000, deliver: false },
      bulk: { pollMs: 50 },
    });
  });
  after(async () => {
    await s?.close();
    await receiver?.close();
  });

  test("ValidateProduct's messages refuse a line, in that line's result", async () => {
    // One answer per question in turn: the first line is refused, the second let through.
    receiver.answer(
      '/validate',
      { body: { validation_messages: ['Item numbers start with SKU-'] } },
      { body: { validation_messages: [] } },
    );
    const made = await s.call('POST', '/webhooks', { body: { event_type: 'ValidateProduct', url: `${receiver.origin}/validate` } });
    assert.equal(made.status, 201, made.text);
    const started = await s.call('POST', '/bulk_operations?type=import&resource=products', {
      rawBody: ndjson([
        { item_name: 'Unchecked', item_number: 'X1' },
        { item_name: 'Checked', item_number: 'SKU-1' },
      ]),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    assert.equal(started.status, 202, started.text);
    let job: Job | undefined;
    for (let i = 0; i < 400 && job?.state !== 'completed' && job?.state !== 'failed'; i++) {
      job = (await s.call('GET', `/bulk_operations/${started.json.id}`)).json as Job;
      if (job.state !== 'completed') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(job?.state, 'completed', JSON.stringify(job));
    const results = linesOf((await download(job?.result_url ?? '', s.store.certificate)).body);
    assert.deepEqual(results[0], { line: 1, status_code: 400, message: 'Bad Request', details: 'Item numbers start with SKU-' });
    assert.equal(results[1]?.status_code, 201);
    const asked = receiver.received.filter((r) => r.path === '/validate').map((r) => r.json);
    assert.deepEqual(asked, [
      { product: { item_name: 'Unchecked', item_number: 'X1' } },
      { product: { item_name: 'Checked', item_number: 'SKU-1' } },
    ]);
    assert.equal((await s.call('GET', '/products?item_number=X1', { headers: { 'cache-control': 'no-cache' } })).json.total_count, 0);
  });
});
