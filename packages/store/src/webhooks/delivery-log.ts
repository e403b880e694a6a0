// The delivery log of a subscription, and sending one of its events again.
import type { Row, StoreDatabase } from '../db/schema.ts';
import { announceQueued } from './resource-events.ts';
import { databaseNow } from '../db/database-clock.ts';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryEntry {
  id: number;
  eventType: string;
  state: DeliveryState;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  deliveredTo: string | null;
  resentFrom: number | null;
}

const orNull = <T>(value: unknown, as: (v: unknown) => T): T | null => (value === null || value === undefined ? null : as(value));

function entry(row: Row): DeliveryEntry {
  return {
    id: Number(row.id),
    eventType: String(row.event_type),
    state: String(row.state) as DeliveryState,
    attempts: Number(row.attempts),
    createdAt: String(row.created_at),
    nextAttemptAt: String(row.next_attempt_at),
    lastAttemptAt: orNull(row.last_attempt_at, String),
    lastStatus: orNull(row.last_status, Number),
    lastError: orNull(row.last_error, String),
    deliveredAt: orNull(row.delivered_at, String),
    deliveredTo: orNull(row.delivered_to, String),
    resentFrom: orNull(row.resent_from, Number),
  };
}

/** The newest deliveries of a subscription first. */
export async function recentDeliveries(database: StoreDatabase, subscriptionId: number, limit = 100): Promise<DeliveryEntry[]> {
  const rows = await database.db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'event_type',
      'state',
      'attempts',
      'created_at',
      'next_attempt_at',
      'last_attempt_at',
      'last_status',
      'last_error',
      'delivered_at',
      'delivered_to',
      'resent_from',
    ])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(entry);
}

/** Counts of a subscription's deliveries by state. */
export async function deliveryCounts(database: StoreDatabase): Promise<Map<number, Record<DeliveryState, number>>> {
  const rows = await database.db
    .selectFrom('webhook_deliveries')
    .select((eb) => ['subscription_id', 'state', eb.fn.countAll().as('n')])
    .groupBy(['subscription_id', 'state'])
    .execute();
  const counts = new Map<number, Record<DeliveryState, number>>();
  for (const row of rows) {
    const id = Number(row.subscription_id);
    const of = counts.get(id) ?? { pending: 0, delivered: 0, failed: 0 };
    of[String(row.state) as DeliveryState] = Number(row.n);
    counts.set(id, of);
  }
  return counts;
}

/**
 * Queues the event of a delivery again, as a new delivery at the end of the subscription's queue (the
 * receiver sees a new X-AC-Delivery id). Undefined when the subscription has no such delivery.
 */
export async function sendAgain(database: StoreDatabase, subscriptionId: number, deliveryId: number): Promise<number | undefined> {
  const { db } = database;
  const original = await db
    .selectFrom('webhook_deliveries')
    .select(['event_type', 'body'])
    .where('id', '=', deliveryId)
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst();
  if (original === undefined) return undefined;
  const now = new Date(databaseNow(database)).toISOString();
  await db
    .insertInto('webhook_deliveries')
    .values({
      subscription_id: subscriptionId,
      event_type: original.event_type,
      body: original.body,
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
      resent_from: deliveryId,
    })
    .execute();
  const made = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('resent_from', '=', deliveryId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  announceQueued(database);
  return Number(made.id);
}

/** One attempt of a delivery, as the console lists it. */
export interface AttemptEntry {
  deliveryId: number;
  attemptedAt: string;
  sentTo: string;
  status: number | null;
  latencyMs: number;
  replyHead: string | null;
  error: string | null;
}

/** The attempts of these deliveries, oldest first. */
export async function attemptsOf(database: StoreDatabase, deliveryIds: readonly number[]): Promise<Map<number, AttemptEntry[]>> {
  const byDelivery = new Map<number, AttemptEntry[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await database.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id').execute();
  for (const row of rows) {
    const id = Number(row.delivery_id);
    const list = byDelivery.get(id) ?? [];
    list.push({
      deliveryId: id,
      attemptedAt: String(row.attempted_at),
      sentTo: String(row.sent_to),
      status: orNull(row.status, Number),
      latencyMs: Number(row.latency_ms),
      replyHead: orNull(row.reply_head, String),
      error: orNull(row.error, String),
    });
    byDelivery.set(id, list);
  }
  return byDelivery;
}

/**
 * Queues a test event for a subscription, at the end of its queue like any other: a body that says it is a test,
 * so a receiver can check its URL, signature verification and answer without a real change in the store.
 */
export async function sendTestEvent(database: StoreDatabase, subscription: Row): Promise<number> {
  const { db } = database;
  const now = new Date(databaseNow(database)).toISOString();
  const body = JSON.stringify({ test: true, event_type: subscription.event_type, webhook_id: Number(subscription.id), sent_at: now });
  await db
    .insertInto('webhook_deliveries')
    .values({
      subscription_id: Number(subscription.id),
      event_type: String(subscription.event_type),
      body,
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    })
    .execute();
  const made = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('subscription_id', '=', Number(subscription.id))
    .where('body', '=', body)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  announceQueued(database);
  return Number(made.id);
}
