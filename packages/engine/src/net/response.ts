// Reading responses the way the tests need: what kind of answer it is, and records by type and owner.
import { Rcode, rcodeNames, RRType, recordIs, type Message, type Name, type ResourceRecord } from '@app/dns';

export type ResponseKind = 'answer' | 'referral' | 'nodata' | 'nxdomain' | 'other';

export function responseKind(message: Message): ResponseKind {
  if (message.rcode === Rcode.NXDOMAIN) return 'nxdomain';
  if (message.answer.length > 0) return 'answer';
  if (message.authority.some((rr) => rr.type === RRType.SOA)) return 'nodata';
  if (message.authority.some((rr) => rr.type === RRType.NS)) return 'referral';
  if (message.authority.length === 0 && message.additional.every((rr) => rr.type === RRType.OPT)) return 'nodata';
  return 'other';
}

export type Section = 'answer' | 'authority' | 'additional';

const allSections: readonly Section[] = ['answer', 'authority', 'additional'];

// These two run for nearly every response a test reads: plain loops, without the arrays in between.

/** Records of `type` in the given sections (all three when none are given). */
export function recordsOfType(message: Message, type: number, sections: readonly Section[] = allSections): ResourceRecord[] {
  const found: ResourceRecord[] = [];
  for (const section of sections) for (const rr of message[section]) if (rr.type === type) found.push(rr);
  return found;
}

export function recordsFor(message: Message, type: number, owner: Name, sections: readonly Section[] = allSections): ResourceRecord[] {
  const found: ResourceRecord[] = [];
  for (const section of sections) for (const rr of message[section]) if (rr.type === type && rr.name.equals(owner)) found.push(rr);
  return found;
}

/** NS target names of the NS records owned by `owner`, lower case and sorted without repeats. */
export function nsNames(message: Message, owner: Name, sections?: readonly Section[]): Name[] {
  const byKey = new Map<string, Name>();
  for (const rr of recordsFor(message, RRType.NS, owner, sections)) {
    if (recordIs(rr, RRType.NS)) byKey.set(rr.rdata.target.key(), rr.rdata.target.toLowerCase());
  }
  return [...byKey.values()].sort(byPresentation);
}

export function addressesIn(message: Message, owner: Name, sections?: readonly Section[]): string[] {
  return [...recordsFor(message, RRType.A, owner, sections), ...recordsFor(message, RRType.AAAA, owner, sections)]
    .map((rr) => (recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA) ? rr.rdata.address : ''))
    .filter((address) => address !== '');
}

/** Presentation form without the final dot, as findings show names; the root stays '.'. */
export function displayName(name: Name): string {
  const text = name.toLowerCase().toString();
  return text === '.' ? text : text.slice(0, -1);
}

export function rcodeName(rcode: number): string {
  return rcodeNames.get(rcode) ?? `RCODE${rcode}`;
}

/** Orders names by their text, as the reference sorts name server names (not canonical DNS order). */
export function byPresentation(a: Name, b: Name): number {
  const x = displayName(a);
  const y = displayName(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
