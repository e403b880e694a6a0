// One attempt at delivering an event: its URL, then the subscription's fallback URL where it has one; each send is
// kept as a row the console shows.
import type { Row } from '../db/schema.ts';
import type { FailureType } from '../model/event-types.ts';
import { REPLY_HEAD_BYTES, sendSigned, type Outcome, type Sender } from './send.ts';
import type { SigningKeys } from './standard-signature.ts';

/** An attempt as the console shows it (a webhook_attempts row). */
export type Tried = Row;

export interface Sending {
  readonly sender: Sender;
  readonly signing: SigningKeys | undefined;
  readonly timeoutMs: number;
  /** The store's time, which each attempt is stamped with. */
  readonly clock: () => number;
}

export const clip = (text: string) => (text.length > 500 ? `${text.slice(0, 497)}...` : text);
const iso = (ms: number) => new Date(ms).toISOString();

function attemptRow(deliveryId: number, at: string, to: 'url' | 'fallback_url', outcome: Outcome): Tried {
  // PostgreSQL text holds no NUL.
  const head = (outcome.ok ? outcome.reply.slice(0, REPLY_HEAD_BYTES) : (outcome.head ?? null))?.replaceAll('\0', '\uFFFD') ?? null;
  return {
    delivery_id: deliveryId,
    attempted_at: at,
    sent_to: to,
    status: outcome.status ?? null,
    latency_ms: outcome.latencyMs,
    reply_head: head,
    error: outcome.ok ? null : clip(outcome.error),
  };
}

/** Sends `delivery` to the subscription's URL, then to its fallback when it fails and the subscription has one; `tried` gets each send. */
export async function attemptDelivery(
  sending: Sending,
  subscription: Row,
  delivery: Row,
  secret: string | undefined,
  tried: Tried[],
): Promise<{ outcome: Outcome; to: 'url' | 'fallback_url' }> {
  if (secret === undefined)
    return {
      outcome: { ok: false, status: undefined, error: 'the app that made this subscription no longer exists', latencyMs: 0 },
      to: 'url',
    };
  const deliveryId = String(delivery.id);
  const standard = sending.signing === undefined ? undefined : { id: deliveryId, secrets: sending.signing.of(subscription) };
  const send = async (url: string, to: 'url' | 'fallback_url') => {
    const at = iso(sending.clock());
    const outcome = await sendSigned(sending.sender, {
      url,
      event: String(delivery.event_type),
      deliveryId,
      body: String(delivery.body),
      secret,
      ...(standard === undefined ? {} : { standard }),
      timeoutMs: sending.timeoutMs,
      maxReplyBytes: 64 * 1024,
    });
    tried.push(attemptRow(Number(delivery.id), at, to, outcome));
    return outcome;
  };
  const first = await send(String(subscription.url), 'url');
  const fallback = subscription.fallback_url;
  if (first.ok || (subscription.failure_type as FailureType | null) !== 'Fallback' || typeof fallback !== 'string' || fallback === '')
    return { outcome: first, to: 'url' };
  const second = await send(fallback, 'fallback_url');
  if (second.ok) return { outcome: second, to: 'fallback_url' };
  return {
    outcome: {
      ok: false,
      status: second.status,
      error: `url: ${first.ok ? '' : first.error}; fallback_url: ${second.error}`,
      latencyMs: first.latencyMs + second.latencyMs,
    },
    to: 'fallback_url',
  };
}
