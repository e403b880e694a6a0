// Answers one run may take from another's (the service's agents share them through Redis): only
// what the resolver and the parent walk ask about names outside the zone under test, such as the
// parent's SOA and NS, the root's and the TLD's keys, and shared name servers' addresses. Questions
// about the zone itself, and all the test cases ask, always go out: that is what is tested.
import { RRType, type Message, type Name } from '@app/dns';

/** A store of reply wire bytes by question; lookups may miss at any time (it is only a cache). */
export interface SharedAnswers {
  get(key: string): Promise<Uint8Array | undefined>;
  /** Keeps `reply` for at most `ttlSeconds` (the smallest TTL in it). */
  set(key: string, reply: Uint8Array, ttlSeconds: number): void;
}

export interface SharedAnswerScope {
  answers: SharedAnswers;
  /** The zone under test: questions at or below it are never shared. */
  below: Name;
}

/** The smallest TTL of the records in a reply, 0 when it has none (not worth sharing). */
export function replyTtl(message: Message): number {
  let ttl = Infinity;
  for (const section of [message.answer, message.authority, message.additional]) {
    for (const rr of section) if (rr.type !== RRType.OPT) ttl = Math.min(ttl, rr.ttl);
  }
  return Number.isFinite(ttl) ? ttl : 0;
}
