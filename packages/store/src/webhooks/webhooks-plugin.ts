// Webhooks in the store app: checks subscriptions as they are written (the target policy, the caller's
// app and store), and runs this instance's delivery worker while the app is up.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parseDatabaseUrl } from '@app/database';
import { secretOf } from '../auth/apps.ts';
import type { AuthContext } from '../auth/context.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { parseRecordId } from '../http/record-id.ts';
import { routeConfigOf } from '../model/route-config.ts';
import { startDeliveryWorker, type RetrySchedule } from './delivery-worker.ts';
import { startDeliveryThread } from './start-delivery-thread.ts';
import { recordsOf } from '../records/records.ts';
import { listenToWrites } from '../records/write-listener.ts';
import { replyAsker, type ReplyAsker } from './reply-events.ts';
import { onQueued, webhookWriteListener } from './resource-events.ts';
import { eventTypes, isEventName } from '../model/event-types.ts';
import { webhooks } from '../model/declarations/webhooks.ts';
import { allows, requiredScope } from '../auth/scopes.ts';
import { closeSender, type Sender } from './send.ts';
import { DEFAULT_EVENT_LOG_DAYS, startEventLogPruning } from './event-log.ts';
import { signingKeys } from './standard-signature.ts';
import { subscriberCheck } from './subscriber-scopes.ts';
import { subscriptionProblems } from './subscription-check.ts';
import { refuseUnlessMadeBy } from './subscription-owner.ts';
import type { TargetPolicy } from './target-policy.ts';

export interface WebhookSettings {
  /** Addresses or CIDRs in loopback/private ranges that webhooks may reach (none by default). */
  allowedNetworks?: readonly string[];
  /** Extra CA certificates (PEM) that receivers' certificates may chain to. */
  ca?: string;
  retry?: RetrySchedule;
  pollMs?: number;
  /** Limit of one delivery attempt. */
  timeoutMs?: number;
  /** False: this instance sends nothing (another one does). */
  deliver?: boolean;
  /** Limit of a reply-expecting event (the platform's 3 s). */
  replyLimitMs?: number;
  /** Days the event log (GET /events) keeps an event; 30 by default. */
  eventLogDays?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Asks the subscribers of an event that expects a reply (GetTax, ValidateCart, ...). */
    webhookReplies: ReplyAsker;
  }
}

// Where the database lives, not its SQL: an in-memory SQLite database is seen by its one connection only.
const inMemory = (url: string) => {
  const target = parseDatabaseUrl(url);
  return target.dialect === 'sqlite' && target.path === ':memory:';
};

const SUBSCRIPTION_ROUTE = /\/webhooks(\/:id)?$/;
const CHANGES = new Set(['POST', 'PUT', 'DELETE']);

export const webhooksPlugin = fp(
  (
    app: FastifyInstance,
    options: {
      database: StoreDatabase;
      databaseUrl?: string | undefined;
      auth: AuthContext;
      policy: TargetPolicy;
      settings: WebhookSettings;
      now?: (() => number) | undefined;
      sandbox?: boolean;
    },
  ) => {
    const { policy } = options;
    // Record writes queue their events; registered before any route writes.
    const stopListening = listenToWrites(options.database, webhookWriteListener);
    app.addHook('onClose', () => stopListening());
    const subscriptions = recordsOf(options.database, webhooks);
    app.addHook('preHandler', async (request) => {
      const config = routeConfigOf(request);
      const principal = request.principal;
      if (config.resource !== 'webhooks' || !CHANGES.has(request.method) || principal === undefined) return;
      // The subscription routes themselves, not those under one (its signing secret: signing-routes.ts).
      if (!SUBSCRIPTION_ROUTE.test(request.routeOptions.url ?? '')) return;
      // POST takes an empty or null body like any resource's; it then lacks a url, a 400 below.
      const body = (request.body ?? {}) as Row;
      const creating = request.method === 'POST';
      // POST with the id of a subscription updates it (an upsert), so it is a change like PUT and DELETE.
      const id = parseRecordId(creating ? (typeof body.id === 'number' ? body.id : undefined) : (request.params as { id?: string }).id);
      const current = id === undefined ? undefined : await subscriptions.get(id);
      // Admins (sessions) may change any; the console is where they do.
      if (current !== undefined && principal.kind !== 'session') refuseUnlessMadeBy(principal, current, 'changes or deletes it');
      if (request.method === 'DELETE') return;
      const problems = await subscriptionProblems(policy, body, creating);
      if (body.store_id !== undefined && body.store_id !== null && body.store_id !== principal.storeId)
        problems.push(`store_id: must be this store's id, ${principal.storeId}`);
      if (problems.length > 0) throw new ApiError(400, problems.join('; '));
      // The event the subscription is (or stays) for: what it carries or decides needs its own scope.
      const event = body.event_type ?? current?.event_type;
      if (typeof event === 'string' && isEventName(event)) {
        const { group, write } = eventTypes[event].needs;
        if (!allows(principal.scopes, group, write)) {
          throw new ApiError(
            403,
            `event_type: ${event} ${write ? `decides for the ${group} area` : `carries ${group} records`}; subscribing to it needs the ${requiredScope(group, write)} scope`,
          );
        }
      }
      if (creating) {
        body.store_id = principal.storeId;
        // The defaults the documentation names are stored, so a reader sees them rather than null.
        body.failure_type ??= 'Ignore';
        body.cache_length ??= 'NoCache';
        // Deliveries are signed with the App Secret of the app that subscribed; only tokens may write here.
        if (principal.kind === 'token') request.serverValues = { app_client_id: principal.appId };
      }
    });

    const sender: Sender = { policy, ca: options.settings.ca };
    const check = subscriberCheck(options.database);
    const signing = signingKeys(options.auth.key);
    const asker = replyAsker(options.database, {
      sender,
      check,
      signing,
      secretOf: (clientId) => secretOf(options.auth, clientId),
      ...(options.settings.replyLimitMs === undefined ? {} : { limitMs: options.settings.replyLimitMs }),
    });
    app.decorate('webhookReplies', asker);

    let worker: { stop(): Promise<void> } | undefined;
    if (options.settings.deliver !== false) {
      const { settings, databaseUrl } = options;
      const nudges = (wake: () => void) => onQueued(options.database, wake);
      app.addHook('onReady', async () => {
        // In a thread of its own where it can open the database again; an in-memory one only this connection sees.
        if (databaseUrl !== undefined && !inMemory(databaseUrl)) {
          const thread = startDeliveryThread(
            {
              databaseUrl,
              key: options.auth.key,
              allowedNetworks: settings.allowedNetworks ?? [],
              ca: settings.ca,
              retry: settings.retry,
              pollMs: settings.pollMs,
              timeoutMs: settings.timeoutMs,
              sandbox: options.sandbox === true,
            },
            { database: options.database, nudges, log: app.log, stopWithinMs: 2 * (settings.timeoutMs ?? 10_000) + 5000 },
          );
          worker = thread;
          // Serving starts with delivery running, as it did in this thread.
          await thread.ready;
          return;
        }
        worker = startDeliveryWorker(options.database, {
          sender,
          check,
          signing,
          secretOf: (clientId) => secretOf(options.auth, clientId),
          ...(settings.retry === undefined ? {} : { retry: settings.retry }),
          ...(settings.pollMs === undefined ? {} : { pollMs: settings.pollMs }),
          ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
          nudges,
          log: app.log,
        });
      });
    }
    // Every instance prunes: the batches are small, and two deleting the same old rows harm nothing.
    let pruning: { stop(): Promise<void> } | undefined;
    app.addHook('onReady', () => {
      pruning = startEventLogPruning(options.database, {
        days: options.settings.eventLogDays ?? DEFAULT_EVENT_LOG_DAYS,
        log: app.log,
        ...(options.now === undefined ? {} : { now: options.now }),
      });
      return Promise.resolve();
    });
    app.addHook('onClose', async () => {
      await pruning?.stop();
      await worker?.stop();
      closeSender(sender);
    });
    return Promise.resolve();
  },
  { name: 'webhooks' },
);
