// How the reference's recursor (9.0.1) treats an answer that is a CNAME for the name asked without
// the records asked for: the CNAME records must form one chain from the name, without repeats or
// loops, at most 9 of them and at most 10 lookups for a whole chain; the chain's end is then taken
// from the same answer when it is there, else looked up from the root. Each verdict is noted with
// the reference's tag (SYSTEM CNAME_*); a broken chain gives no answer at all.
import { Rcode, RRType, recordIs, type Message, type Name } from '@app/dns';
import type { Message as Note } from '../finding.ts';
import { recordsFor, recordsOfType } from '../net/response.ts';

const maxRecords = 9;
const maxChainLength = 10;

/** Shared by the lookups of one chain: the names asked (to find loops across zones) and the chain's length. */
export interface ChainState {
  inProgress: Set<string>;
  targetsSeen: Set<string>;
  lookups: number;
  notes: Note[];
}

export const newChainState = (): ChainState => ({ inProgress: new Set(), targetsSeen: new Set(), lookups: 0, notes: [] });

export const lookupKey = (name: Name, type: number): string => `${name.key()}|${type}`;

/** Whether an answer asks to follow a CNAME: one for the name, and no records of the type for it. */
export function needsFollowing(message: Message, name: Name, type: number): boolean {
  return (
    type !== RRType.CNAME && recordsFor(message, type, name).length === 0 && recordsFor(message, RRType.CNAME, name, ['answer']).length > 0
  );
}

const typeName = (type: number): string => Object.entries(RRType).find(([, value]) => value === type)?.[0] ?? `TYPE${type}`;

/** An answer and the name its records are for (the end of the chain followed). */
export interface Followed {
  message?: Message;
  canonical: Name;
}

/**
 * Follows the CNAME answer `message` for `name`/`type`; `lookUp` asks from the root again (with the
 * same state). No message when the chain is broken or cannot be resolved.
 */
export async function followCname(
  name: Name,
  type: number,
  message: Message,
  state: ChainState,
  lookUp: (name: Name, type: number, state: ChainState) => Promise<Followed>,
): Promise<Followed> {
  const note = (tag: string, args: Record<string, string | number>): void => {
    state.notes.push({ tag, args });
  };
  const broken: Followed = { canonical: name };
  const seenRecords = new Set<string>();
  const records = recordsOfType(message, RRType.CNAME, ['answer']).flatMap((rr) => {
    if (!recordIs(rr, RRType.CNAME)) return [];
    const key = `${rr.name.key()} ${rr.rdata.target.key()}`;
    if (seenRecords.has(key)) return [];
    seenRecords.add(key);
    return [{ owner: rr.name, target: rr.rdata.target }];
  });
  const nameText = name.toString();
  if (records.length > maxRecords) {
    note('CNAME_RECORDS_TOO_MANY', { name: nameText, count: records.length, max: maxRecords });
    return broken;
  }
  const targets = new Map<string, Name>();
  const seenTargets = new Set<string>();
  for (const { owner, target } of records) {
    if (targets.has(owner.key())) {
      note('CNAME_RECORDS_MULTIPLE_FOR_NAME', { name: owner.toLowerCase().toString() });
      return broken;
    }
    // As the reference checks it: a record whose target was an owner of an earlier one counts as a loop.
    if (owner.equals(target) || seenTargets.has(target.key()) || targets.has(target.key())) {
      note('CNAME_LOOP_INNER', {
        name: records.map((r) => r.owner.toString()).join(';'),
        target: records.map((r) => r.target.toString()).join(';'),
      });
      return broken;
    }
    seenTargets.add(target.key());
    targets.set(owner.key(), target);
  }
  let target = name;
  let followed = 0;
  for (let next = targets.get(target.key()); next; next = targets.get(target.key())) {
    target = next;
    followed++;
  }
  if (followed !== records.length) {
    note('CNAME_RECORDS_CHAIN_BROKEN', { name: nameText, cname_rrs: records.length, cname_counter: followed });
    return broken;
  }
  if (state.inProgress.has(lookupKey(target, type))) {
    note('CNAME_LOOP_OUTER', { name: nameText, target: target.toString(), targets_seen: [...state.targetsSeen].join(';') });
    return broken;
  }
  state.targetsSeen.add(target.toLowerCase().toString());
  state.lookups++;
  if (state.lookups > maxChainLength) {
    note('CNAME_CHAIN_TOO_LONG', { count: state.lookups, max: maxChainLength });
    return broken;
  }
  const ofType = recordsOfType(message, type, ['answer']);
  if (ofType.length > 0) {
    if (recordsFor(message, type, target).length > 0) {
      note('CNAME_FOLLOWED_IN_ZONE', { name: nameText, type: typeName(type), target: target.toString() });
      return { message, canonical: target };
    }
    note('CNAME_NO_MATCH', {
      name: nameText,
      type: typeName(type),
      target: target.toString(),
      owner_names: ofType.map((rr) => rr.name.toString()).join(';'),
    });
  }
  if (!target.isSubdomainOf(name)) {
    note('CNAME_FOLLOWED_OUT_OF_ZONE', { name: nameText, target: target.toString() });
    return lookUp(target, type, state);
  }
  const below = await lookUp(target, type, state);
  if (below.message && below.message.aa && below.message.rcode === Rcode.NOERROR) {
    note('CNAME_TO_NODATA', { name: nameText, type: typeName(type), target: target.toString() });
    return below;
  }
  note('CNAME_UNRESOLVABLE', { name: nameText, type: typeName(type), target: target.toString() });
  return broken;
}
