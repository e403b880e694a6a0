// Idempotency-Key on POST and PUT: the first request with a key claims it (a row whose primary key is
// the caller's key), runs, and its answer is kept for 24 hours. The same key with the same request
// gets that answer again without a second write; with another request, 422. A second request that
// arrives while the first still runs waits for its answer, so two concurrent retries write once.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { constraintViolation } from '../db/constraint-violation.ts';
import type { StoreSchema } from '../db/schema.ts';
import { StreamedUpload } from '../http/streamed-upload.ts';
import { ApiError } from '../model/api-error.ts';
import { idempotencyHeader, isIdempotencyKey, KEY_LIFETIME_MS } from './idempotency-header.ts';
/** How long a request waits for another one with its key to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 20;
const PURGE_EVERY_MS = 15 * 60 * 1000;

export interface IdempotencyOptions {
  db: Kysely<StoreSchema>;
  /** Only requests under this prefix (the API) take part. */
  apiPrefix: string;
  now?: () => number;
}

interface Claim {
  keyHash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | undefined;
  }
}

interface KeyRow {
  fingerprint: string;
  created_at: string;
  status_code: number | null;
  content_type: string | null;
  body: string | null;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function callerOf(principal: Principal): string {
  return principal.kind === 'token' ? `${principal.storeId}:app:${principal.appId}` : `${principal.storeId}:admin:${principal.adminUserId}`;
}

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined) return undefined;
  if (!isIdempotencyKey(key)) throw new ApiError(400, `${idempotencyHeader.name} must be 1 to 255 visible ASCII characters`);
  return key;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The kept keys: claiming one (or waiting for its first request's answer, then replaying it), and keeping an answer. */
function idempotencyKeys(db: Kysely<StoreSchema>, now: () => number) {
  const findRow = (keyHash: string) =>
    db.selectFrom('idempotency_keys').select(['fingerprint', 'created_at', 'status_code', 'content_type', 'body']).where('key_hash', '=', keyHash).executeTakeFirst() as Promise<KeyRow | undefined>;

  /** True when this request now holds the key; false when another request's row is there. */
  async function claim(keyHash: string, fingerprint: string): Promise<boolean> {
    try {
      await db.insertInto('idempotency_keys').values({ key_hash: keyHash, fingerprint, created_at: new Date(now()).toISOString() }).execute();
      return true;
    } catch (error) {
      if (constraintViolation(error) === 'unique') return false;
      throw error;
    }
  }

  async function settle(request: FastifyRequest, reply: FastifyReply, keyHash: string, fingerprint: string): Promise<void> {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      if (await claim(keyHash, fingerprint)) {
        request.idempotencyClaim = { keyHash };
        return;
      }
      const row = await findRow(keyHash);
      if (row === undefined) continue; // released (the first request failed on the server's side): try again
      if (Date.parse(row.created_at) <= now() - KEY_LIFETIME_MS) {
        await db.deleteFrom('idempotency_keys').where('key_hash', '=', keyHash).where('created_at', '=', row.created_at).execute();
        continue;
      }
      if (row.fingerprint !== fingerprint) {
        throw new ApiError(422, 'This Idempotency-Key was already used with a different request; use a new key for a new request');
      }
      if (row.status_code !== null) {
        await reply
          .code(row.status_code)
          .header('idempotent-replayed', 'true')
          .header('cache-control', 'no-store')
          .type(row.content_type ?? 'application/json; charset=utf-8')
          .send(row.body ?? '');
        return;
      }
      if (Date.now() > deadline) {
        throw new ApiError(409, 'A request with this Idempotency-Key has not finished (it is still running, or the server stopped during it); retry later', { 'retry-after': '1' });
      }
      await sleep(POLL_MS);
    }
  }

  /** Keeps the answer under the claimed key, or releases the key when there is none to keep. */
  async function keep(reply: FastifyReply, claimed: Claim, payload: unknown): Promise<void> {
    const where = db.deleteFrom('idempotency_keys').where('key_hash', '=', claimed.keyHash);
    // A server-side failure is not an answer to keep: the key is released so a retry runs again.
    if (reply.statusCode >= 500 || (typeof payload !== 'string' && !Buffer.isBuffer(payload) && payload !== undefined && payload !== null)) {
      await where.execute();
      return;
    }
    const contentType = reply.getHeader('content-type');
    await db
      .updateTable('idempotency_keys')
      .set({
        status_code: reply.statusCode,
        content_type: typeof contentType === 'string' ? contentType : null,
        body: payload === undefined || payload === null ? '' : payload.toString(),
      })
      .where('key_hash', '=', claimed.keyHash)
      .execute();
  }
  return { settle, keep };
}

export const idempotency = fp(
  (app: FastifyInstance, options: IdempotencyOptions) => {
    const { db } = options;
    const now = options.now ?? Date.now;
    app.decorateRequest('idempotencyClaim', undefined);

    const keys = idempotencyKeys(db, now);

    // Callback-style hooks: a request without a key (most) passes without a promise to settle.
    app.addHook('preValidation', (request, reply, done: (error?: Error) => void) => {
      const principal = request.principal;
      let key: string | undefined;
      try {
        key = (request.method === 'POST' || request.method === 'PUT') && principal !== undefined && request.url.startsWith(`${options.apiPrefix}/`) ? keyOf(request) : undefined;
      } catch (error) {
        done(error as Error);
        return;
      }
      if (key === undefined || principal === undefined) {
        done();
        return;
      }
      // Hashed before any later hook rewrites the body (encrypted fields get a fresh nonce each time).
      // A body streamed to a file (an import's NDJSON lines) is known by the hash of its bytes, taken as it arrived.
      const body = request.body;
      const fingerprint = body instanceof StreamedUpload ? sha256(`${request.method} ${request.url}\nupload ${body.sha256}`) : sha256(`${request.method} ${request.url}\n${JSON.stringify(body) ?? ''}`);
      keys.settle(request, reply, sha256(`${callerOf(principal)}\n${key}`), fingerprint).then(
        // A replayed answer has been sent: the request goes no further.
        () => (reply.sent ? undefined : done()),
        (error: unknown) => done(error as Error),
      );
    });

    app.addHook('onSend', (request, reply, payload, done) => {
      const claimed = request.idempotencyClaim;
      if (claimed === undefined) {
        done(null, payload);
        return;
      }
      request.idempotencyClaim = undefined;
      keys.keep(reply, claimed, payload).then(
        () => done(null, payload),
        (error: unknown) => done(error as Error),
      );
    });

    // Answers are kept 24 hours; older rows are removed now and then.
    const purge = setInterval(() => {
      const cutoff = new Date(now() - KEY_LIFETIME_MS).toISOString();
      db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).execute().catch((error: unknown) => app.log.warn({ err: error }, 'purging idempotency keys failed'));
    }, PURGE_EVERY_MS);
    purge.unref();
    app.addHook('onClose', () => clearInterval(purge));
    return Promise.resolve();
  },
  { name: 'idempotency' },
);
