// Huge bodies at POST /bulk_operations, against a store in its own process (so the client's work is not the
// server's): a JSON body gets the API's 1 MiB limit whatever the route takes as NDJSON; an NDJSON upload is counted
// as it streams, refused at the plan's rows + 1 or at 64 MiB without the rest being read, and refused before a
// byte is read when the request itself is refused. Meanwhile another app's calls are answered within a second,
// the server's memory stays flat, and no refused upload leaves a file behind.
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { Agent, request } from 'undici';
import type { ServeOptions } from '../src/server.ts';

const MiB = 1024 * 1024;
/** Longer than any answer to a small GET takes here, even on a loaded machine; a blocked event loop takes far longer. */
const PROMPT_MS = 1000;
/** What the server may grow by while refusing them all (it grew by gigabytes when it held the bodies). */
const RSS_ALLOWANCE = 300 * MiB;
/** How long an upload may go without a byte here (30 s in a served store). */
const STALL_MS = 1000;

interface Answer {
  status: number;
  json: { status_code: number; message: string; details: string };
  /** Bytes of the body the client had handed to its socket when the answer came. */
  sent: number;
}

/** The server's memory now and at its peak, from /proc. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

for (const target of await testDatabaseTargets()) {
  describe(`huge bodies at POST /bulk_operations on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let dataDir: string;
    let child: ChildProcess;
    let store: { apiUrl: string; certificate: string; token: string; readToken: string };
    let dispatcher: Agent;
    let startRss = 0;

    before(async () => {
      throwaway = await target.create();
      dataDir = mkdtempSync(join(tmpdir(), 'store-bulk-attack-'));
      // No job runs here: every upload below is refused, and one that were not should be seen, not run.
      const options: ServeOptions = {
        databaseUrl: throwaway.url,
        dataDir,
        host: '127.0.0.1',
        port: 0,
        plan: 'gold',
        logLevel: 'silent',
        without: { rateLimit: true },
        bulk: { run: false, uploadIdleMs: STALL_MS },
      };
      child = fork(new URL('./support/store-process.ts', import.meta.url), [JSON.stringify(options)], { stdio: 'inherit' });
      [store] = (await once(child, 'message')) as [typeof store];
      dispatcher = new Agent({ connect: { ca: store.certificate } });
      startRss = memoryOf(child.pid ?? 0).rss;
    });
    after(async () => {
      await dispatcher?.close();
      if (child?.connected) {
        child.disconnect();
        await once(child, 'exit');
      }
      await throwaway?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /**
     * POSTs `head`, then `chunk` over and over up to `total` bytes, then `tail`, stopping as soon as the answer comes.
     * Without `declare` the body is chunked, so the server cannot know its size before reading it.
     */
    function sendHuge(
      path: string,
      headers: Record<string, string>,
      body: { head?: string; chunk: Buffer; total: number; tail?: string; declare?: number; pauseAfter?: number; abortAfterMs?: number },
    ): Promise<Answer> {
      const head = Buffer.from(body.head ?? '');
      const tail = Buffer.from(body.tail ?? '');
      const length = body.declare ?? head.length + body.total + tail.length;
      return new Promise((resolve, reject) => {
        const req = httpsRequest(`${store.apiUrl}${path}`, {
          method: 'POST',
          ca: store.certificate,
          agent: false,
          headers: {
            ...headers,
            ...(body.declare === undefined && !('content-length' in headers)
              ? { 'transfer-encoding': 'chunked' }
              : { 'content-length': String(length) }),
          },
        });
        let sent = 0;
        let answered = false;
        req.on('response', (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            req.destroy();
            try {
              resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as Answer['json'], sent });
            } catch {
              reject(new Error(`not JSON: ${response.statusCode ?? 0} ${text.slice(0, 300)}`));
            }
          });
        });
        // Writing on after the server closed the connection is expected once it has answered.
        req.on('error', (error) => {
          if (!answered) reject(error);
        });
        const write = (piece: Buffer): boolean => {
          sent += piece.length;
          return req.write(piece);
        };
        let given = 0;
        const pump = () => {
          while (!answered && given < body.total) {
            if (body.pauseAfter !== undefined && given >= body.pauseAfter) return;
            const piece = body.total - given >= body.chunk.length ? body.chunk : body.chunk.subarray(0, body.total - given);
            given += piece.length;
            if (!write(piece)) {
              req.once('drain', pump);
              return;
            }
          }
          if (!answered) req.end(tail.length > 0 ? tail : undefined);
        };
        if (head.length > 0) write(head);
        pump();
        if (body.abortAfterMs !== undefined) setTimeout(() => req.destroy(), body.abortAfterMs).unref();
      });
    }

    /** Runs `attack` while another app reads a product list every 50 ms; the slowest of those reads, in ms. */
    async function whileAnotherAppReads<T>(
      token: string,
      attack: () => Promise<T>,
    ): Promise<{ result: T; slowest: number; reads: number }> {
      let stop = false;
      const times: number[] = [];
      const reader = (async () => {
        while (!stop) {
          const started = performance.now();
          const reply = await request(`${store.apiUrl}/products?count=1`, {
            headers: { 'x-ac-auth-token': token, 'cache-control': 'no-cache' },
            dispatcher,
          });
          await reply.body.text();
          assert.equal(reply.statusCode, 200);
          times.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      try {
        const result = await attack();
        const slowest = Math.max(0, ...times);
        console.log(`# ${target.name}: another app's slowest read ${Math.round(slowest)} ms over ${times.length} reads`);
        return { result, slowest, reads: times.length };
      } finally {
        stop = true;
        await reader;
      }
    }

    function assertRefused(answer: Answer, status: number, details: string | RegExp): void {
      assert.equal(answer.status, status, JSON.stringify(answer.json));
      assert.deepEqual(Object.keys(answer.json), ['status_code', 'message', 'details']);
      assert.equal(answer.json.status_code, status);
      if (typeof details === 'string') assert.equal(answer.json.details, details);
      else assert.match(answer.json.details, details);
    }

    const uploadsLeft = () => (existsSync(join(dataDir, 'bulk')) ? readdirSync(join(dataDir, 'bulk')) : []);
    const noUploadLeft = () => assert.deepEqual(uploadsLeft(), [], 'a refused upload left its file');
    const ndjson = { 'content-type': 'application/x-ndjson' };
    const importProducts = '/bulk_operations?type=import&resource=products';

    test('a read-only token sending a 60 MiB JSON export request gets 413 at 1 MiB, and other apps are answered meanwhile', async () => {
      const exportBody = {
        head: '{"type":"export","resource":"products","query":"',
        chunk: Buffer.alloc(64 * 1024, 'a'),
        total: 60 * MiB,
        tail: '"}',
      };
      const attacker = { 'x-ac-auth-token': store.readToken, 'content-type': 'application/json' };
      for (const declared of [false, true]) {
        const { result, slowest } = await whileAnotherAppReads(store.token, () =>
          sendHuge('/bulk_operations', attacker, { ...exportBody, ...(declared ? { declare: 60 * MiB + 60 } : {}) }),
        );
        assertRefused(result, 413, 'The body is larger than this API accepts');
        assert.ok(
          result.sent < 16 * MiB,
          `the server read on past its limit (${result.sent} bytes sent, Content-Length ${declared ? 'declared' : 'not sent'})`,
        );
        assert.ok(slowest < PROMPT_MS, `another app waited ${Math.round(slowest)} ms`);
      }
      // The route takes JSON up to the API's limit, as every route does.
      const small = await sendHuge('/bulk_operations', attacker, {
        head: '{"type":"nothing","resource":"products","query":"',
        chunk: Buffer.alloc(900 * 1024, 'a'),
        total: 900 * 1024,
        tail: '"}',
      });
      assertRefused(small, 400, 'type: one of export, import');
    });

    test('64 MiB of blank lines is read as it streams and refused with 400, and other apps are answered meanwhile', async () => {
      const { result, slowest, reads } = await whileAnotherAppReads(store.readToken, () =>
        sendHuge(importProducts, { 'x-ac-auth-token': store.token, ...ndjson }, { chunk: Buffer.alloc(64 * 1024, '\n'), total: 64 * MiB }),
      );
      assertRefused(result, 400, 'The body holds no lines; send one product as JSON a line');
      assert.ok(reads > 0);
      assert.ok(slowest < PROMPT_MS, `another app waited ${Math.round(slowest)} ms`);
      noUploadLeft();
    });

    test("64 MiB of one-character lines is refused at the plan's rows + 1, without the rest being read", async () => {
      const { result, slowest } = await whileAnotherAppReads(store.readToken, () =>
        sendHuge(
          importProducts,
          { 'x-ac-auth-token': store.token, ...ndjson },
          { chunk: Buffer.from('1\n'.repeat(32 * 1024)), total: 64 * MiB },
        ),
      );
      assertRefused(result, 413, 'The import holds more than 2000000 lines; the Gold plan imports at most 2000000 in one job');
      // 2,000,001 lines of 2 bytes are 4 MiB; what the socket buffers took besides is far less than the rest.
      assert.ok(result.sent < 24 * MiB, `the server read on past the plan's rows (${result.sent} bytes sent)`);
      assert.ok(slowest < PROMPT_MS, `another app waited ${Math.round(slowest)} ms`);
      noUploadLeft();
    });

    test('an upload past 64 MiB is refused with 413 as it passes the limit, or at once when its Content-Length says so', async () => {
      const line = Buffer.from(`${JSON.stringify({ item_name: 'x'.repeat(MiB - 20) })}\n`);
      const streamed = await sendHuge(importProducts, { 'x-ac-auth-token': store.token, ...ndjson }, { chunk: line, total: 80 * MiB });
      assertRefused(streamed, 413, `The body is larger than this API accepts here (${64 * MiB} bytes)`);
      assert.ok(streamed.sent < 80 * MiB);
      const declared = await sendHuge(
        importProducts,
        { 'x-ac-auth-token': store.token, ...ndjson },
        { chunk: line, total: 80 * MiB, declare: 1024 * MiB },
      );
      assertRefused(declared, 413, `The body is larger than this API accepts here (${64 * MiB} bytes)`);
      assert.ok(declared.sent < 16 * MiB, `the server read a body its Content-Length said was too large (${declared.sent} bytes sent)`);
      noUploadLeft();
    });

    test('an import the request itself refuses (scope, resource, type) is answered before its upload is read', async () => {
      const body = { chunk: Buffer.from('{"item_name":"Never read"}\n'.repeat(2000)), total: 64 * MiB };
      const cases: [string, Record<string, string>, number, string][] = [
        [importProducts, { 'x-ac-auth-token': store.readToken }, 403, 'This token does not have the catalog scope this import needs'],
        [
          '/bulk_operations?type=import&resource=nothings',
          { 'x-ac-auth-token': store.token },
          400,
          'resource: there is no resource "nothings"',
        ],
        [
          '/bulk_operations?type=export&resource=products',
          { 'x-ac-auth-token': store.token },
          400,
          'An export takes a JSON body: {"type": "export", "resource": ..., "query": ...}',
        ],
        [
          '/bulk_operations?type=import&resource=webhooks',
          { 'x-ac-auth-token': store.token },
          400,
          'resource: webhooks cannot be imported: a subscription is checked against its target and its app; POST /webhooks one at a time',
        ],
        [importProducts, { 'x-ac-auth-token': 'not a token' }, 401, ''],
      ];
      for (const [path, headers, status, details] of cases) {
        const answer = await sendHuge(path, { ...headers, ...ndjson }, body).catch((error: unknown) =>
          assert.fail(`${path} ${JSON.stringify(headers)}: ${String(error)}`),
        );
        assertRefused(answer, status, details === '' ? /./ : details);
        assert.ok(answer.sent < 16 * MiB, `${path}: the upload was read before it was refused (${answer.sent} bytes sent)`);
      }
      noUploadLeft();
    });

    test('a caller that stalls mid-upload gets 408 once nothing arrived for a while, and one that goes away leaves no file', async () => {
      const stalling = { chunk: Buffer.from('{"item_name":"Stalled"}\n'.repeat(100)), total: 64 * MiB, pauseAfter: 2 * MiB };
      const headers = { 'x-ac-auth-token': store.token, ...ndjson };
      const { result, slowest, reads } = await whileAnotherAppReads(store.readToken, () => sendHuge(importProducts, headers, stalling));
      assertRefused(result, 408, `Nothing of the upload arrived for ${STALL_MS / 1000} s`);
      assert.ok(reads > 0);
      assert.ok(slowest < PROMPT_MS, `another app waited ${Math.round(slowest)} ms`);
      noUploadLeft();
      const gone = await sendHuge(importProducts, headers, { ...stalling, abortAfterMs: STALL_MS / 4 }).catch((error: unknown) => error);
      assert.ok(gone instanceof Error, 'the caller left before an answer');
      for (let i = 0; i < 100 && uploadsLeft().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      noUploadLeft();
    });

    test('a store has at most as many uploads arriving at once as its plan runs jobs (Gold: 3); the next is refused before it is read', async () => {
      const headers = { 'x-ac-auth-token': store.token, ...ndjson };
      const stalling = { chunk: Buffer.from('{"item_name":"Stalled"}\n'.repeat(100)), total: 64 * MiB, pauseAfter: 64 * 1024 };
      const held = [1, 2, 3].map(() => sendHuge(importProducts, headers, stalling));
      for (let i = 0; i < 100 && uploadsLeft().length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const fourth = await sendHuge(importProducts, headers, { ...stalling, pauseAfter: undefined });
      assertRefused(fourth, 429, 'The Gold plan takes at most 3 import uploads at a time and 3 are arriving; send this one when one is in');
      assert.ok(fourth.sent < 16 * MiB, `the fourth upload was read before it was refused (${fourth.sent} bytes sent)`);
      for (const answer of await Promise.all(held)) assert.equal(answer.status, 408);
      noUploadLeft();
    });

    test('refusing all of that, the server grew by little', () => {
      const { peak } = memoryOf(child.pid ?? 0);
      console.log(
        `# ${target.name}: the server's RSS ${Math.round(startRss / MiB)} MiB at the start, ${Math.round(peak / MiB)} MiB at its peak`,
      );
      assert.ok(
        peak - startRss < RSS_ALLOWANCE,
        `the server's memory peaked ${Math.round((peak - startRss) / MiB)} MiB above where it started`,
      );
    });
  });
}
