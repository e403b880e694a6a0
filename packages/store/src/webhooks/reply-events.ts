// Events that expect a reply (ValidateProduct, GetTax, ...): asked while the request that needs the value
// waits, of every subscription at once, each with the platform's 3-second limit. A reply is reused for
// the subscription's cache_length when the same question comes again. When a subscription fails to
// answer, its failure_type decides: Ignore goes on without its reply, Error fails the request (502), and
// Fallback asks the fallback URL, then goes on without a reply if that fails too. A subscription that fails
// SUSPEND_AFTER times in a row is suspended (no longer asked) until an admin resumes it in the console, so a receiver
// that never answers cannot slow or refuse every other app's writes for good.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { cacheLengths, type CacheLength, type EventName, type FailureType } from '../model/event-types.ts';
import { sendSigned, type Outcome, type Sender } from './send.ts';
import type { SigningKeys } from './standard-signature.ts';
import type { SubscriberCheck } from './subscriber-scopes.ts';

export const REPLY_LIMIT_MS = 3000;
export const SUSPEND_AFTER = 5;
/** A new or changed subscription is asked within this long on every instance. */
const SUBSCRIPTIONS_FRESH_MS = 1000;

export type Reply = Record<string, unknown>;

export interface ReplyAsker {
  /** The replies of every subscription to this event, in subscription order; none when nobody subscribed. */
  ask(event: EventName, body: Record<string, unknown>): Promise<Reply[]>;
  /**
   * Whether anyone subscribed to the event, so a question that costs reads to build is built only then;
   * at once, without a promise, while the subscriptions read last are fresh.
   */
  subscribed(event: EventName): boolean | Promise<boolean>;
}

export interface ReplyOptions {
  sender: Sender;
  secretOf: (clientId: string) => Promise<string | undefined>;
  /** Tests shorten the platform's 3 seconds. */
  limitMs?: number;
  /** Failures in a row that suspend a subscription (SUSPEND_AFTER). */
  suspendAfter?: number;
  /** Why a subscription may no longer be asked (its app lost the scopes its event needs); it is then suspended. */
  check?: SubscriberCheck;
  /** The subscriptions' Standard Webhooks signing secrets. */
  signing?: SigningKeys;
}

function parsed(outcome: Outcome): Reply | string {
  if (!outcome.ok) return outcome.error;
  try {
    const value: unknown = JSON.parse(outcome.reply);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Reply;
  } catch {
    // falls through
  }
  return 'the reply is not a JSON object';
}

/** One more failure in a row; at `suspendAfter` the subscription is suspended, with the reason the console shows. */
async function countFailure(
  database: StoreDatabase,
  suspendAfter: number,
  event: EventName,
  subscription: Row,
  error: string,
): Promise<void> {
  const id = Number(subscription.id);
  const { db } = database;
  await db
    .updateTable('webhooks')
    .set((eb) => ({ reply_failures: eb(eb.fn.coalesce('reply_failures', eb.lit(0)), '+', 1) }))
    .where('id', '=', id)
    .execute();
  const reason = `${event} failed ${suspendAfter} times in a row, last: ${error}`.slice(0, 500);
  await db
    .updateTable('webhooks')
    .set({ suspended_at: new Date().toISOString(), suspended_reason: reason })
    .where('id', '=', id)
    .where('suspended_at', 'is', null)
    .where('reply_failures', '>=', suspendAfter)
    .execute();
}

export function replyAsker(database: StoreDatabase, options: ReplyOptions): ReplyAsker {
  const limitMs = options.limitMs ?? REPLY_LIMIT_MS;
  const suspendAfter = options.suspendAfter ?? SUSPEND_AFTER;
  const subscribed = new Map<EventName, { at: number; rows: Promise<Row[]>; read?: readonly Row[] }>();
  const replies = new LRUCache<string, Reply>({ max: 5000 });

  function fresh(event: EventName) {
    const known = subscribed.get(event);
    return known !== undefined && Date.now() - known.at < SUBSCRIPTIONS_FRESH_MS ? known : undefined;
  }

  function subscriptionsTo(event: EventName): Promise<Row[]> {
    const known = fresh(event);
    if (known !== undefined) return known.rows;
    const rows = database.db
      .selectFrom('webhooks')
      .selectAll()
      .where('event_type', '=', event)
      .where('suspended_at', 'is', null)
      .orderBy('id')
      .execute();
    const entry: { at: number; rows: Promise<Row[]>; read?: readonly Row[] } = { at: Date.now(), rows };
    subscribed.set(event, entry);
    rows.then(
      (read) => (entry.read = read),
      () => subscribed.delete(event),
    );
    return rows;
  }

  async function askOne(event: EventName, subscription: Row, text: string, bodyHash: string): Promise<Reply | undefined> {
    const lost = await options.check?.problem(subscription);
    if (lost !== undefined) {
      await options.check?.suspend(subscription, lost);
      subscribed.delete(event);
      return undefined;
    }
    const cacheLength =
      typeof subscription.cache_length === 'string' && Object.hasOwn(cacheLengths, subscription.cache_length)
        ? cacheLengths[subscription.cache_length as CacheLength]
        : 0;
    const key = `${String(subscription.id)}\n${String(subscription.url)}\n${bodyHash}`;
    const cached = cacheLength > 0 ? replies.get(key) : undefined;
    if (cached !== undefined) return cached;
    const secret = typeof subscription.app_client_id === 'string' ? await options.secretOf(subscription.app_client_id) : undefined;
    const send = async (url: string): Promise<Reply | string> =>
      secret === undefined
        ? 'the app that made this subscription no longer exists'
        : parsed(
            await sendSigned(options.sender, {
              url,
              event,
              deliveryId: `reply-${bodyHash.slice(0, 16)}`,
              body: text,
              secret,
              ...(options.signing === undefined
                ? {}
                : {
                    standard: {
                      id: `reply-${String(subscription.id)}-${bodyHash.slice(0, 16)}`,
                      secrets: options.signing.of(subscription),
                    },
                  }),
              timeoutMs: limitMs,
              maxReplyBytes: 256 * 1024,
            }),
          );
    let answer = await send(String(subscription.url));
    const failure = (subscription.failure_type ?? 'Ignore') as FailureType;
    if (
      typeof answer === 'string' &&
      failure === 'Fallback' &&
      typeof subscription.fallback_url === 'string' &&
      subscription.fallback_url !== ''
    ) {
      answer = await send(subscription.fallback_url);
    }
    if (typeof answer === 'string') {
      await countFailure(database, suspendAfter, event, subscription, answer);
      // The next question reads the subscriptions again, so the count (and a suspension) is seen at once.
      subscribed.delete(event);
      if (failure === 'Error') throw new ApiError(502, `A ${event} webhook this store relies on failed (${answer}); try again later`);
      return undefined;
    }
    if (Number(subscription.reply_failures ?? 0) > 0) {
      await database.db.updateTable('webhooks').set({ reply_failures: 0 }).where('id', '=', Number(subscription.id)).execute();
      subscribed.delete(event);
    }
    if (cacheLength > 0) replies.set(key, answer, { ttl: cacheLength });
    return answer;
  }

  return {
    subscribed(event) {
      const read = fresh(event)?.read;
      return read === undefined ? subscriptionsTo(event).then((rows) => rows.length > 0) : read.length > 0;
    },
    async ask(event, body) {
      const subscriptions = await subscriptionsTo(event);
      if (subscriptions.length === 0) return [];
      const text = JSON.stringify(body);
      const bodyHash = createHash('sha256').update(text).digest('hex');
      const answers = await Promise.all(subscriptions.map((subscription) => askOne(event, subscription, text, bodyHash)));
      return answers.filter((answer): answer is Reply => answer !== undefined);
    },
  };
}

/** The validation messages of Validate* replies, all together. */
export function validationMessages(replies: readonly Reply[]): string[] {
  return replies.flatMap((reply) =>
    Array.isArray(reply.validation_messages) ? reply.validation_messages.filter((m): m is string => typeof m === 'string' && m !== '') : [],
  );
}
