// Idempotency-Key on POST and PUT: the first request with a key claims it (a row whose primary key is
// the caller's key), runs, and its answer is kept for 24 hours. The same key with the same request
// gets that answer again without a second write; with another request, 422. A second request that
// arrives while the first still runs waits for its answer, so two concurrent retries write once.
// Routes that keep the answer in the write's own transaction (http/answer-in-write.ts) leave no claim without its
// effect's answer: a claim still unanswered after TAKE_OVER_AFTER_MS there had no effect (its instance died, or
// it is too slow to be let commit), so a retry takes it over instead of answering 409 for 24 hours.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { constraintViolation } from '../db/constraint-violation.ts';
import type { StoreSchema } from '../db/schema.ts';
import { StreamedUpload } from '../http/streamed-upload.ts';
import { ApiError } from '../model/api-error.ts';
import { routeConfigOf } from '../model/route-config.ts';
import type { Claim } from '../http/answer-in-write.ts';
import { idempotencyHeader, isIdempotencyKey, KEY_LIFETIME_MS } from './idempotency-header.ts';
/** How long a request waits for another one with its key to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 20;
/** How long a claim kept by an answer-in-write route may stay unanswered before a retry takes it over. */
const TAKE_OVER_AFTER_MS = WAIT_FOR_FIRST_MS;
const PURGE_EVERY_MS = 15 * 60 * 1000;

export interface IdempotencyOptions {
  db: Kysely<StoreSchema>;
  /** Only requests under this prefix (the API) take part. */
  apiPrefix: string;
  now?: () => number;
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
    db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'created_at', 'status_code', 'content_type', 'body'])
      .where('key_hash', '=', keyHash)
      .executeTakeFirst() as Promise<KeyRow | undefined>;

  /** The claim when this request now holds the key; undefined when another request's row is there. */
  async function claim(keyHash: string, fingerprint: string): Promise<Claim | undefined> {
    const since = new Date(now()).toISOString();
    try {
      await db.insertInto('idempotency_keys').values({ key_hash: keyHash, fingerprint, created_at: since }).execute();
      return { db, keyHash, since };
    } catch (error) {
      if (constraintViolation(error) === 'unique') return undefined;
      throw error;
    }
  }

  async function settle(request: FastifyRequest, reply: FastifyReply, keyHash: string, fingerprint: string): Promise<void> {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    const mayTakeOver = routeConfigOf(request).answerInWrite === true;
    for (;;) {
      const claimed = await claim(keyHash, fingerprint);
      if (claimed !== undefined) {
        request.idempotencyClaim = claimed;
        return;
      }
      const row = await findRow(keyHash);
      if (row === undefined) continue; // released (the first request failed on the server's side): try again
      const age = now() - Date.parse(row.created_at);
      if (age >= KEY_LIFETIME_MS) {
        await db.deleteFrom('idempotency_keys').where('key_hash', '=', keyHash).where('created_at', '=', row.created_at).execute();
        continue;
      }
      if (mayTakeOver && row.status_code === null && row.fingerprint === fingerprint && age >= TAKE_OVER_AFTER_MS) {
        // An unanswered claim had no effect here: its holder, if still alive, finds the claim gone when it commits.
        await db
          .deleteFrom('idempotency_keys')
          .where('key_hash', '=', keyHash)
          .where('created_at', '=', row.created_at)
          .where('status_code', 'is', null)
          .execute();
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
        throw new ApiError(
          409,
          'A request with this Idempotency-Key has not finished (it is still running, or the server stopped during it); retry later',
          { 'retry-after': '1' },
        );
      }
      await sleep(POLL_MS);
    }
  }

  /** Keeps the answer under the claimed key, or releases the key when there is none to keep; a claim taken over is left to its new holder. */
  async function keep(reply: FastifyReply, claimed: Claim, payload: unknown): Promise<void> {
    // The write kept this very answer in its transaction.
    if (
      claimed.keptBody !== undefined &&
      (payload === claimed.keptBody || (Buffer.isBuffer(payload) && payload.toString() === claimed.keptBody))
    )
      return;
    const where = db
      .deleteFrom('idempotency_keys')
      .where('key_hash', '=', claimed.keyHash)
      .where('created_at', '=', claimed.since)
      .where('status_code', 'is', null);
    // A server-side failure is not an answer to keep: the key is released so a retry runs again.
    if (
      reply.statusCode >= 500 ||
      (typeof payload !== 'string' && !Buffer.isBuffer(payload) && payload !== undefined && payload !== null)
    ) {
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
      .where('created_at', '=', claimed.since)
      .where('status_code', 'is', null)
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
        key =
          (request.method === 'POST' || request.method === 'PUT') &&
          principal !== undefined &&
          request.url.startsWith(`${options.apiPrefix}/`)
            ? keyOf(request)
            : undefined;
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
      const fingerprint =
        body instanceof StreamedUpload
          ? sha256(`${request.method} ${request.url}\nupload ${body.sha256}`)
          : sha256(`${request.method} ${request.url}\n${JSON.stringify(body) ?? ''}`);
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
      // The answer goes out even when keeping it (or releasing the key) fails, as when the database is lost right
      // then: it is the truth about the request, where an error here would replace it with the database's own words.
      // The claim left behind is taken over by a retry after TAKE_OVER_AFTER_MS where the write kept its answer itself;
      // elsewhere it answers 409 until it expires, as when an instance dies between its write and keeping the answer.
      keys.keep(reply, claimed, payload).then(
        () => done(null, payload),
        (error: unknown) => {
          request.log.warn({ err: error }, 'idempotency: the answer could not be kept; the key stays claimed');
          done(null, payload);
        },
      );
    });

    // Answers are kept 24 hours; older rows are removed now and then.
    const purge = setInterval(() => {
      const cutoff = new Date(now() - KEY_LIFETIME_MS).toISOString();
      db.deleteFrom('idempotency_keys')
        .where('created_at', '<', cutoff)
        .execute()
        .catch((error: unknown) => app.log.warn({ err: error }, 'purging idempotency keys failed'));
    }, PURGE_EVERY_MS);
    purge.unref();
    app.addHook('onClose', () => clearInterval(purge));
    return Promise.resolve();
  },
  { name: 'idempotency' },
);
