// Table-driven checks of one method: each row is params and the exact answer expected.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Harness, RpcReply } from './rpc-harness.ts';

export interface Row {
  name: string;
  params?: unknown;
  /** Expected error: the code, and where given the message and data exactly. */
  error?: { code: number; message?: string; data?: unknown };
  /** Check of a successful result. */
  result?: (result: unknown, harness: Harness) => void | Promise<void>;
}

export const INVALID = 'Invalid method parameter(s).';

/** A -32602 row expectation with exactly these {path, message} items. */
export function invalidAt(...items: [path: string, message: string | RegExp][]): Row['error'] & { items: [string, string | RegExp][] } {
  return { code: -32602, message: INVALID, items };
}

export function table(harness: Harness, method: string, rows: Row[]): void {
  for (const row of rows) {
    test(`${method}: ${row.name}`, async () => {
      const reply: RpcReply = await harness.call(method, row.params);
      if (row.error !== undefined) {
        assert.equal(reply.result, undefined, `expected an error, got result ${JSON.stringify(reply.result)}`);
        assert.ok(reply.error, 'expected an error object');
        assert.equal(reply.error.code, row.error.code, JSON.stringify(reply.error));
        if (row.error.message !== undefined) assert.equal(reply.error.message, row.error.message);
        const items = (row.error as { items?: [string, string | RegExp][] }).items;
        if (items !== undefined) {
          const data = reply.error.data as { path: string; message: string }[];
          assert.ok(Array.isArray(data), 'data is an array');
          assert.deepEqual(
            data.map((d) => d.path),
            items.map(([path]) => path),
            JSON.stringify(data),
          );
          items.forEach(([, message], i) => {
            if (typeof message === 'string') assert.equal(data[i]?.message, message);
            else assert.match(data[i]?.message ?? '', message);
          });
        } else if (row.error.data !== undefined) {
          assert.deepEqual(reply.error.data, row.error.data);
        }
      } else {
        assert.equal(reply.error, undefined, `unexpected error ${JSON.stringify(reply.error)}`);
        await row.result?.(reply.result, harness);
      }
    });
  }
}
