// On SQLite the delivery thread writes through the API thread's connection. A second connection's commit
// would make the API's deferred transactions (they read, then write) fail with SQLITE_BUSY on their stale
// snapshot; through the one connection they simply come before or after. Its writes are few (a lease, one
// UPDATE and one INSERT per batch of sends), so the round trip costs little.
import type { MessagePort, Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { StoreDatabase, StoreSchema } from '../db/schema.ts';

export interface ForwardedQuery {
  kind: 'query';
  id: number;
  sql: string;
  parameters: readonly unknown[];
}
export type ForwardedAnswer =
  { kind: 'result'; id: number; rows: unknown[]; numAffectedRows: bigint | undefined } | { kind: 'failed'; id: number; message: string };

export const isForwardedQuery = (message: unknown): message is ForwardedQuery => (message as { kind?: unknown } | null)?.kind === 'query';
export const isForwardedAnswer = (message: unknown): message is ForwardedAnswer =>
  ['result', 'failed'].includes(String((message as { kind?: unknown } | null)?.kind));

/** Thread side: a Kysely whose statements run on the other end of `port`. Single statements only (no transactions). */
export function forwardingKysely(port: MessagePort): { db: Kysely<StoreSchema>; answer(message: ForwardedAnswer): void } {
  let next = 0;
  const waiting = new Map<number, { resolve: (result: QueryResult<unknown>) => void; reject: (error: Error) => void }>();
  const connection: DatabaseConnection = {
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      const id = (next += 1);
      return new Promise<QueryResult<R>>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (result: QueryResult<unknown>) => void, reject });
        port.postMessage({ kind: 'query', id, sql: query.sql, parameters: query.parameters } satisfies ForwardedQuery);
      });
    },
    streamQuery() {
      throw new Error('forwarded statements are not streamed');
    },
  };
  const noTransactions = () => Promise.reject(new Error('forwarded statements run one at a time, outside transactions'));
  const driver: Driver = {
    init: () => Promise.resolve(),
    acquireConnection: () => Promise.resolve(connection),
    beginTransaction: noTransactions,
    commitTransaction: noTransactions,
    rollbackTransaction: noTransactions,
    releaseConnection: () => Promise.resolve(),
    destroy: () => Promise.resolve(),
  };
  const db = new Kysely<StoreSchema>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (kysely) => new SqliteIntrospector(kysely),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  return {
    db,
    answer(message) {
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.kind === 'failed') pending?.reject(new Error(message.message));
      else
        pending?.resolve({
          rows: message.rows,
          ...(message.numAffectedRows === undefined ? {} : { numAffectedRows: message.numAffectedRows }),
        });
    },
  };
}

/** API side: runs a forwarded statement on this database and answers the thread. */
export function runForwarded(database: StoreDatabase, thread: Worker, query: ForwardedQuery): void {
  database.db.executeQuery(CompiledQuery.raw(query.sql, [...query.parameters])).then(
    (result) =>
      thread.postMessage({
        kind: 'result',
        id: query.id,
        rows: result.rows,
        numAffectedRows: result.numAffectedRows,
      } satisfies ForwardedAnswer),
    (error: unknown) =>
      thread.postMessage({
        kind: 'failed',
        id: query.id,
        message: error instanceof Error ? error.message : String(error),
      } satisfies ForwardedAnswer),
  );
}
