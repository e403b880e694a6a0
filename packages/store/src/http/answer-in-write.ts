// The answer of a request with an Idempotency-Key, kept by the write's own transaction: the record and the answer
// commit together or not at all, so no crash leaves an effect without its answer (idempotency/'s `onSend` keeps
// answers only after the write committed). Here, below both, so the record routes and the plugin share it; the
// claim must still be this request's when the write commits, else the write is undone (a retry took it over).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { runSteps, type WriteSteps } from '../db/group-commit.ts';
import type { StoreSchema } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** The claim a request holds on its key, made by the plugin. */
export interface Claim {
  readonly db: Kysely<StoreSchema>;
  readonly keyHash: string;
  /** When it was claimed: who holds the claim, as a retry taking it over claims it anew. */
  readonly since: string;
  /** The answer's body once the write stored it. */
  keptBody?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | undefined;
  }
  interface FastifyInstance {
    /**
     * An answer as this caller is shown it: what the preSerialization hooks make of it (the auth plugin reveals or
     * drops encrypted fields). A kept answer is sent as text, which no preSerialization hook sees, so it is shown first.
     */
    shownAnswer?: (request: FastifyRequest, payload: unknown) => unknown;
  }
}

/** `value` as JSON text, as this caller is shown it. */
export function shownJson(request: FastifyRequest, value: unknown): string {
  const shown = request.server.shownAnswer;
  return JSON.stringify(shown === undefined ? value : shown(request, value));
}

export interface AnswerText {
  status: number;
  /** JSON text, sent as it is. */
  body: string;
}

export interface AnswerInWrite<T> {
  /** The write's last step: the answer stored under the request's claim. */
  readonly step: (value: T) => WriteSteps<void>;
  /** The same step in a transaction Kysely holds: a write of several statements that is not one record's. */
  keep(trx: Kysely<StoreSchema>, value: T): Promise<void>;
  /** Sends the kept answer byte for byte; undefined when the write kept none (it had no answer to keep). */
  send(reply: FastifyReply): FastifyReply | undefined;
}

/** undefined when the request claimed no key: the write then needs no step of its own. */
export function answerInWrite<T>(request: FastifyRequest, answerOf: (value: T) => AnswerText | undefined): AnswerInWrite<T> | undefined {
  const found = request.idempotencyClaim;
  if (found === undefined) return undefined;
  const claim: Claim = found;
  let kept: AnswerText | undefined;
  function* step(value: T): WriteSteps<void> {
    const answer = answerOf(value);
    if (answer === undefined) return;
    const stored = yield claim.db
      .updateTable('idempotency_keys')
      .set({ status_code: answer.status, content_type: JSON_TYPE, body: answer.body })
      .where('key_hash', '=', claim.keyHash)
      .where('created_at', '=', claim.since)
      .where('status_code', 'is', null)
      .compile();
    if (Number(stored.numAffectedRows ?? 0) !== 1) {
      throw new ApiError(409, 'A retry with this Idempotency-Key took over while this request ran too long; its answer is the one kept', {
        'retry-after': '1',
      });
    }
    kept = answer;
  }
  return {
    step,
    keep: (trx, value) => runSteps(trx, step(value)),
    send(reply) {
      if (kept === undefined) return undefined;
      claim.keptBody = kept.body;
      return reply.code(kept.status).type(JSON_TYPE).send(kept.body);
    },
  };
}
