// Writes announce themselves to whoever listens (the webhooks plugin queues its events), so records/ knows
// no listener. A listener's steps run inside the write's transaction: what it queues commits with the record.
import type { CompiledQuery } from 'kysely';
import type { WriteSteps } from '../db/group-commit.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { resourceNamed } from '../model/registry.ts';
import { rowShaper } from './row-shape.ts';

/** Reads a record of a resource by id inside the write, in its API form. */
export type RecordLookup = (resource: string, id: unknown) => WriteSteps<Row | undefined>;

/** What one listener does on the writes of one resource. */
export interface ResourceWriteHooks {
  /** Updates then read the record as it was before, to pass it to `updated`. */
  readonly needsBefore: boolean;
  /** `record` may be its JSON text as the database wrote it. */
  created(record: Row | string): WriteSteps<void>;
  updated(before: Row | undefined, after: Row): WriteSteps<void>;
  /** After the write's transaction committed. */
  committed(): void;
}

export interface WriteListener {
  /** Its hooks for the writes of `resource`; undefined when it takes no interest in them. */
  hooksFor(database: StoreDatabase, resource: ResourceDeclaration, lookup: RecordLookup): ResourceWriteHooks | undefined;
}

interface Listeners {
  /** Each listener with how many subscribed it: two apps on one database queue each event once. */
  readonly all: Map<WriteListener, number>;
  /** Grows with every change, so records know to ask again. */
  version: number;
}

const listenersByDatabase = new WeakMap<StoreDatabase, Listeners>();

function listenersOf(database: StoreDatabase): Listeners {
  let listeners = listenersByDatabase.get(database);
  if (listeners === undefined) listenersByDatabase.set(database, (listeners = { all: new Map(), version: 0 }));
  return listeners;
}

/** Subscribes `listener` to every record write on this database (in this process); the answer unsubscribes. */
export function listenToWrites(database: StoreDatabase, listener: WriteListener): () => void {
  const listeners = listenersOf(database);
  listeners.all.set(listener, (listeners.all.get(listener) ?? 0) + 1);
  listeners.version += 1;
  let subscribed = true;
  return () => {
    if (!subscribed) return;
    subscribed = false;
    const count = (listeners.all.get(listener) ?? 1) - 1;
    if (count === 0) listeners.all.delete(listener);
    else listeners.all.set(listener, count);
    listeners.version += 1;
  };
}

/** A lookup of records by id inside a write, each resource's statement compiled once. */
export function recordLookup(database: StoreDatabase): RecordLookup {
  const lookups = new Map<string, { query: CompiledQuery; shape: (row: Row) => Row }>();
  return function* (name, id) {
    if (id === undefined || id === null) return undefined;
    let lookup = lookups.get(name);
    if (lookup === undefined) {
      const target = resourceNamed(name);
      lookups.set(
        name,
        (lookup = { query: database.db.selectFrom(target.table).selectAll().where('id', '=', 0).compile(), shape: rowShaper(target) }),
      );
    }
    const row = (yield { ...lookup.query, parameters: [id] }).rows[0];
    return row === undefined ? undefined : lookup.shape(row);
  };
}

/**
 * The hooks of a resource's writes, asked again only when the listeners changed: a function answering the
 * current ones, undefined while nobody listens (most resources, most of the time).
 */
export function writeHooksOf(database: StoreDatabase, resource: ResourceDeclaration): () => ResourceWriteHooks | undefined {
  const listeners = listenersOf(database);
  let version = -1;
  let hooks: ResourceWriteHooks | undefined;
  return () => {
    if (version !== listeners.version) {
      version = listeners.version;
      const lookup = recordLookup(database);
      const each = [...listeners.all.keys()].flatMap((listener) => listener.hooksFor(database, resource, lookup) ?? []);
      hooks = each.length <= 1 ? each[0] : combined(each);
    }
    return hooks;
  };
}

function combined(each: readonly ResourceWriteHooks[]): ResourceWriteHooks {
  return {
    needsBefore: each.some((hooks) => hooks.needsBefore),
    *created(record) {
      for (const hooks of each) yield* hooks.created(record);
    },
    *updated(before, after) {
      for (const hooks of each) yield* hooks.updated(before, after);
    },
    committed() {
      for (const hooks of each) hooks.committed();
    },
  };
}
