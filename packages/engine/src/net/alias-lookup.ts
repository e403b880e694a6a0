// A lookup of a name that may be an alias, as the reference engine's recursor (9.0) returns it: when
// the answer has the alias and the record asked for under its target, that answer; when it has the
// alias only, a new lookup of the target, whose answer no longer shows the alias.
import { RRType, recordIs, type Message, type Name } from '@app/dns';
import { recordsFor, recordsOfType } from './response.ts';

export interface AliasLookup {
  message?: Message;
  /** The name the answer is for: the target, when the lookup was made again for it. */
  owner: Name;
}

/** Who looks names up: the zone under test, with the run's recursor. */
export interface Recursor {
  recurse(name: Name, type: number): Promise<{ message?: Message }>;
}

/** Alias hops followed within one answer, at most. */
const maxHops = 10;

export async function lookupThroughAlias(zone: Recursor, name: Name, type: number): Promise<AliasLookup> {
  const { message } = await zone.recurse(name, type);
  // A lookup that already asked again for a target says so in its question.
  const asked = message?.question[0]?.name;
  if (message && asked && !asked.equals(name)) return { message, owner: asked };
  if (
    !message ||
    recordsFor(message, type, name, ['answer']).length > 0 ||
    recordsFor(message, RRType.CNAME, name, ['answer']).length === 0
  )
    return { message, owner: name };
  const aliases = new Map(
    recordsOfType(message, RRType.CNAME, ['answer']).flatMap((rr) =>
      recordIs(rr, RRType.CNAME) ? [[rr.name.key(), rr.rdata.target] as const] : [],
    ),
  );
  let target = name;
  for (let hops = 0; aliases.has(target.key()) && hops < maxHops; hops++) target = aliases.get(target.key())!;
  if (recordsFor(message, type, target, ['answer']).length > 0) return { message, owner: name };
  const again = await zone.recurse(target, type);
  return { message: again.message, owner: target };
}
