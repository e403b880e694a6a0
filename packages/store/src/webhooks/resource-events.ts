// Which writes send which events, as data the write path reads; and the statements that queue them.
// The events are queued by the write itself, in its transaction: one row per subscription in the
// outbox (webhook_deliveries), so an event is never lost when the process dies after the write, and one row in
// the event log (event_log, read by GET /events) whether or not anyone subscribed.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { WriteSteps } from '../db/group-commit.ts';
import type { Row, StoreDatabase, StoreSchema } from '../db/schema.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import type { EventName } from '../model/event-types.ts';
import { resourceNamed } from '../model/registry.ts';
import { encryptedFieldsOf } from '../records/row-shape.ts';
import { recordLookup, type RecordLookup, type WriteListener } from '../records/write-listener.ts';
import { databaseNow } from '../db/database-clock.ts';

/** The referenced record's boolean flag, e.g. an order's status `is_shipped`. */
interface Condition {
  readonly via: string;
  readonly flag: string;
  readonly is: boolean;
}

interface EventRule {
  readonly event: EventName;
  /**
   * A new record, any update, or an update that changes this field; `place`: an order placed from a cart
   * (`POST /carts/{id}/place_order`), which also sends the order's `create` events.
   */
  readonly on: 'create' | 'update' | 'place' | { readonly changed: string };
  /** All must hold for the record as written. */
  readonly when?: readonly Condition[];
  /** Adds `old_<name>` and `new_<name>`: the changed field's values, or the records they reference. */
  readonly oldNew?: string;
  /** `item`: the platform's product status summary instead of the record under its key. */
  readonly body?: 'item';
}

interface ResourceEvents {
  /** The record goes under this key: `{"product": {...}}`. */
  readonly key: string;
  readonly rules: readonly EventRule[];
  /** Asked before a POST or PUT is written (the record as it would be); its validation messages refuse the write. */
  readonly validate?: EventName;
}

const statusIs = (flag: string, is: boolean): Condition => ({ via: 'order_status_id', flag, is });

/** The events each resource's writes send, as the platform's docs tie them. */
export const resourceEvents: Readonly<Record<string, ResourceEvents>> = {
  products: {
    key: 'product',
    validate: 'ValidateProduct',
    rules: [
      { event: 'ProductCreated', on: 'create' },
      { event: 'ProductUpdated', on: 'update' },
      { event: 'ProductStatusChanged', on: { changed: 'product_status_id' }, body: 'item' },
    ],
  },
  customers: {
    key: 'customer',
    validate: 'ValidateCustomer',
    rules: [
      { event: 'CustomerCreated', on: 'create' },
      { event: 'CustomerUpdated', on: 'update' },
      { event: 'CustomerEmailUpdated', on: { changed: 'email' }, oldNew: 'email' },
    ],
  },
  orders: {
    key: 'order',
    rules: [
      { event: 'NewOrder', on: 'create' },
      { event: 'OrderPlaced', on: 'place' },
      { event: 'NewValidOrder', on: 'create', when: [statusIs('is_cancelled', false), statusIs('is_declined', false)] },
      { event: 'OrderUpdated', on: 'update' },
      { event: 'OrderStatusChanged', on: { changed: 'order_status_id' }, oldNew: 'status' },
      { event: 'OrderCanceled', on: { changed: 'order_status_id' }, when: [statusIs('is_cancelled', true)] },
      { event: 'OrderDeclined', on: { changed: 'order_status_id' }, when: [statusIs('is_declined', true)] },
      { event: 'OrderShipped', on: { changed: 'order_status_id' }, when: [statusIs('is_shipped', true)] },
    ],
  },
};

/** The event that validates writes of a resource, and the key its record goes under. */
export function validationOf(resource: string): { event: EventName; key: string } | undefined {
  const declared = Object.hasOwn(resourceEvents, resource) ? resourceEvents[resource] : undefined;
  return declared?.validate === undefined ? undefined : { event: declared.validate, key: declared.key };
}

export interface WriteEvents {
  /** Updates need the record as it was before, to see what changed. */
  readonly needsBefore: boolean;
  /** `record` may be its JSON text as the database wrote it, read only if an event goes out. */
  created(record: Row | string): WriteSteps<void>;
  /** An order made by checking out a cart: its create events and OrderPlaced. */
  placed(record: Row): WriteSteps<void>;
  updated(before: Row | undefined, after: Row): WriteSteps<void>;
  /** Whether writes queued a delivery since the last call (announced once they have committed). */
  takeQueued(): boolean;
}

/** One write's events in the making: the record as subscribers see it, and the records it refers to. */
interface Sending {
  readonly record: Row;
  readonly written: Row;
  readonly referenced: Map<string, Row | undefined>;
}

const outboxNudges = new WeakMap<StoreDatabase, Set<() => void>>();

/** Calls `nudge` after each committed write that queued a delivery on this database (in this process). */
export function onQueued(database: StoreDatabase, nudge: () => void): () => void {
  let set = outboxNudges.get(database);
  if (set === undefined) outboxNudges.set(database, (set = new Set()));
  set.add(nudge);
  return () => set.delete(nudge);
}

/** Tells this process's delivery workers that a write committed events; they look at once instead of at their next poll. */
export function announceQueued(database: StoreDatabase): void {
  for (const nudge of outboxNudges.get(database) ?? []) nudge();
}

// Compiled once with stand-in values, which each call swaps for its own.
const EVENT = '\0event';
const BODY = '\0body';
const AT = '\0at';
const RECORD = '\0record';

/** The statements of a resource's events: the fan-out to each subscription, the event log's row, and whether anyone subscribed. */
function eventStatements(db: Kysely<StoreSchema>, resource: ResourceDeclaration) {
  const fanOut = db
    .insertInto('webhook_deliveries')
    .columns(['subscription_id', 'event_type', 'body', 'state', 'attempts', 'next_attempt_at', 'created_at'])
    .expression(
      db
        .selectFrom('webhooks')
        .select((eb) => [
          'id',
          eb.val(EVENT).as('event_type'),
          eb.val(BODY).as('body'),
          sql.lit('pending').as('state'),
          sql.lit(0).as('attempts'),
          eb.val(AT).as('next_attempt_at'),
          eb.val(AT).as('created_at'),
        ])
        .where('event_type', '=', EVENT),
    )
    .compile();
  // The event log (GET /events) takes every event, subscribed or not, in the same transaction.
  const logInsert = db
    .insertInto('event_log')
    .values({ event_type: EVENT, resource: resource.name, record_id: RECORD, body: BODY, created_at: AT })
    .compile();
  const probe = db.selectFrom('webhooks').select('id').where('event_type', '=', EVENT).limit(1).compile();
  return {
    queue: (event: EventName, body: string, at: string): CompiledQuery => ({
      ...fanOut,
      parameters: fanOut.parameters.map((p) => (p === EVENT ? event : p === BODY ? body : p === AT ? at : p)),
    }),
    log: (event: EventName, recordId: unknown, body: string, at: string): CompiledQuery => ({
      ...logInsert,
      parameters: logInsert.parameters.map((p) =>
        p === EVENT
          ? event
          : p === RECORD
            ? typeof recordId === 'number'
              ? recordId
              : Number(recordId) || null
            : p === BODY
              ? body
              : p === AT
                ? at
                : p,
      ),
    }),
    anyOf: (event: EventName): CompiledQuery => ({ ...probe, parameters: probe.parameters.map((p) => (p === EVENT ? event : p)) }),
  };
}

/** A record without the fields its resource hides from subscribers (encrypted ones). */
function visibleTo(hidden: (resource: string) => readonly string[]) {
  return (name: string, row: Row | undefined): Row | undefined => {
    const fields = hidden(name);
    // Most resources hide nothing: copying a product's 143 fields was a tenth of a POST's time.
    if (row === undefined || fields.length === 0) return row;
    const out = { ...row };
    for (const field of fields) delete out[field];
    return out;
  };
}

/** What an event's body reads: the key its record goes under, and the records it refers to as subscribers see them. */
interface EventReads {
  readonly key: string;
  readonly resource: ResourceDeclaration;
  readonly lookup: RecordLookup;
  readonly visible: (resource: string, row: Row | undefined) => Row | undefined;
}

/** A record referenced by a field of the written one, read once per write. */
function* referencedBy(reads: EventReads, sending: Sending, field: string): WriteSteps<Row | undefined> {
  if (!sending.referenced.has(field)) {
    const target = reads.resource.fields[field]?.references;
    sending.referenced.set(
      field,
      target === undefined ? undefined : reads.visible(target, yield* reads.lookup(target, sending.written[field])),
    );
  }
  return sending.referenced.get(field);
}

/** The body of a rule's event for this write; undefined when the rule's conditions do not hold. */
function* eventBody(
  reads: EventReads,
  rule: EventRule,
  sending: Sending,
  before: Row | undefined,
): WriteSteps<Record<string, unknown> | undefined> {
  const { record } = sending;
  const referenced = (field: string) => referencedBy(reads, sending, field);
  for (const condition of rule.when ?? []) {
    const target = yield* referenced(condition.via);
    if (Boolean(target?.[condition.flag]) !== condition.is) return undefined;
  }
  let body: Record<string, unknown>;
  if (rule.body === 'item') {
    const status = yield* referenced('product_status_id');
    body = {
      item: {
        product_id: record.id,
        product_status_id: record.product_status_id,
        product: record,
        product_status: status ?? null,
        inventory: record.quantity_on_hand,
        item_number: record.item_number,
      },
    };
  } else {
    body = { [reads.key]: record };
  }
  if (rule.oldNew !== undefined && typeof rule.on === 'object') {
    const field = rule.on.changed;
    const target = reads.resource.fields[field]?.references;
    if (target === undefined) {
      body[`old_${rule.oldNew}`] = before?.[field] ?? null;
      body[`new_${rule.oldNew}`] = record[field] ?? null;
    } else {
      body[`old_${rule.oldNew}`] = reads.visible(target, yield* reads.lookup(target, before?.[field])) ?? null;
      body[`new_${rule.oldNew}`] = (yield* referenced(field)) ?? null;
    }
  }
  return body;
}

/**
 * The event statements of one resource's writes, or undefined when its writes send none.
 * `lookup` reads a record by id inside the write, `shape` turns a row of a resource into its API form.
 */
export function writeEventsOf(
  database: StoreDatabase,
  resource: ResourceDeclaration,
  lookup: RecordLookup,
  hidden: (resource: string) => readonly string[],
): WriteEvents | undefined {
  const declared: ResourceEvents | undefined = Object.hasOwn(resourceEvents, resource.name) ? resourceEvents[resource.name] : undefined;
  if (declared === undefined) return undefined;
  const { key, rules } = declared;
  const { db } = database;
  let queuedSinceAsked = false;

  const { queue, log, anyOf } = eventStatements(db, resource);

  // Most stores subscribe to few events, so a write first asks, in its transaction, whether anyone subscribed,
  // and fans out only then (the body is made either way, for the event log). Once one was found, the next writes
  // go straight to the fan-out,
  // which tells by its count whether there still is one: the answer is always the database's as of the
  // write, on every instance, and a subscribed event costs no extra statement.
  const lastFound = new Map<EventName, boolean>();
  function* subscribed(event: EventName): WriteSteps<boolean> {
    if (lastFound.get(event) === true) return true;
    const found = (yield anyOf(event)).rows.length > 0;
    if (found) lastFound.set(event, true);
    return found;
  }

  const visible = visibleTo(hidden);
  const reads: EventReads = { key, resource, lookup, visible };

  function* send(rule: EventRule, sending: Sending, before: Row | undefined, subscribers: boolean): WriteSteps<number> {
    const body = yield* eventBody(reads, rule, sending, before);
    return body === undefined ? 0 : yield* sendText(rule.event, sending.record.id, JSON.stringify(body), subscribers);
  }

  function* sendText(event: EventName, recordId: unknown, text: string, subscribers: boolean): WriteSteps<number> {
    const at = new Date(databaseNow(database)).toISOString();
    yield log(event, recordId, text, at);
    if (!subscribers) return 0;
    const result = yield queue(event, text, at);
    const queued = Number(result.numAffectedRows ?? 0);
    lastFound.set(event, queued > 0);
    return queued;
  }

  // A record the database wrote as JSON text (SQLite) goes into the body of a rule that reads nothing of it as it
  // is: parsing its 143 fields and writing them again was a tenth of a POST's time. Its id leads the text.
  const asIs = hidden(resource.name).length === 0;
  const plain = (rule: EventRule) => asIs && rule.when === undefined && rule.oldNew === undefined && rule.body === undefined;
  const keyText = JSON.stringify(key);
  const leadingId = (text: string): number | undefined => {
    const id = /^\{"id":(\d{1,10})[,}]/.exec(text)?.[1];
    return id === undefined ? undefined : Number(id);
  };

  function* emit(kind: 'create' | 'update' | 'place', writtenAs: Row | string, before: Row | undefined): WriteSteps<void> {
    let written: Row | undefined = typeof writtenAs === 'string' ? undefined : writtenAs;
    let sending: Sending | undefined;
    let queued = 0;
    for (const rule of rules) {
      const applies =
        typeof rule.on === 'string'
          ? rule.on === kind || (kind === 'place' && rule.on === 'create')
          : kind === 'update' && before !== undefined && written !== undefined && before[rule.on.changed] !== written[rule.on.changed];
      if (!applies) continue;
      const subscribers = yield* subscribed(rule.event);
      const id = typeof writtenAs === 'string' && plain(rule) ? leadingId(writtenAs) : undefined;
      if (id !== undefined) {
        queued += yield* sendText(rule.event, id, `{${keyText}:${writtenAs as string}}`, subscribers);
        continue;
      }
      written ??= JSON.parse(writtenAs as string) as Row;
      sending ??= { record: visible(resource.name, written) as Row, written, referenced: new Map() };
      queued += yield* send(rule, sending, before, subscribers);
    }
    if (queued > 0) queuedSinceAsked = true;
  }

  return {
    takeQueued() {
      const queued = queuedSinceAsked;
      queuedSinceAsked = false;
      return queued;
    },
    needsBefore: rules.some((rule) => typeof rule.on === 'object'),
    created: (record) => emit('create', record, undefined),
    placed: (record) => emit('place', record, undefined),
    updated: (before, after) => emit('update', after, before),
  };
}

/** The webhook events of a resource's writes, reading the records they refer to inside the write; undefined when it sends none. */
export function resourceWriteEvents(
  database: StoreDatabase,
  resource: ResourceDeclaration,
  lookup: RecordLookup = recordLookup(database),
): WriteEvents | undefined {
  return writeEventsOf(database, resource, lookup, (name) => encryptedFieldsOf(resourceNamed(name)));
}

/** Record writes queue their events in their own transaction, and wake the delivery workers once committed. */
export const webhookWriteListener: WriteListener = {
  hooksFor(database, resource, lookup) {
    const events = resourceWriteEvents(database, resource, lookup);
    if (events === undefined) return undefined;
    return {
      needsBefore: events.needsBefore,
      created: (record) => events.created(record),
      updated: (before, after) => events.updated(before, after),
      committed() {
        if (events.takeQueued()) announceQueued(database);
      },
    };
  },
};
