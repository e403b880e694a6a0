// Checks asked before a record is written, the twin of write-listener.ts (whose listeners are told after): each
// may refuse the write with an ApiError, change the values it carries, or add fields the server decides. They
// are given to the write path (resources/record-writes.ts) in order, so records/ knows none of them.
import type { Row } from '../db/schema.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';

export interface PendingWrite {
  readonly resource: ResourceDeclaration;
  /** POST's upsert (its body's id may name a record), PUT's update of `id`, DELETE's removal of `id`. */
  readonly kind: 'upsert' | 'update' | 'remove';
  /** The record PUT or DELETE names. */
  readonly id: number | undefined;
  /** The values as the caller sent them, schema-checked; a check may change them. Empty for a removal. */
  readonly body: Row;
  /** Fields the server sets, never taken from the body (a line's price); a check may add some. */
  serverValues: Row;
}

/** One check of a resource's writes: nothing to wait for when it has nothing to ask (most writes). */
export type WriteCheck = (write: PendingWrite) => Promise<void> | undefined;

export interface BeforeWriteCheck {
  /** Its check of the writes of `resource`; undefined when it takes no interest in them. */
  checkFor(resource: ResourceDeclaration): WriteCheck | undefined;
}

/** The checks of each resource's writes, in the order given, each asked once the one before it passed. */
export function beforeWriteChecks(checks: readonly BeforeWriteCheck[]): (resource: ResourceDeclaration) => WriteCheck | undefined {
  const byResource = new Map<ResourceDeclaration, WriteCheck | undefined>();
  return (resource) => {
    if (byResource.has(resource)) return byResource.get(resource);
    const each = checks.flatMap((check) => check.checkFor(resource) ?? []);
    const check = each.length <= 1 ? each[0] : inTurn(each);
    byResource.set(resource, check);
    return check;
  };
}

function inTurn(each: readonly WriteCheck[]): WriteCheck {
  const from = (start: number, write: PendingWrite): Promise<void> | undefined => {
    for (let index = start; index < each.length; index += 1) {
      const waiting = each[index]?.(write);
      if (waiting !== undefined) return waiting.then(() => from(index + 1, write));
    }
    return undefined;
  };
  return (write) => from(0, write);
}
