// Answers that cannot come from the real root. A captive portal, a firewall or a company resolver
// that takes over port 53 answers in the root servers' place, and the run would then blame the
// domain's delegation for what the network did. The real root servers offer no recursion (RA is
// never set), answer the root zone's own data with AA, refer every other name down to its TLD (never
// up, to the root), and never say that a TLD they delegate does not exist: the TLDs of the root
// servers' own names, from the hints, are such TLDs.
import { Rcode, RRType, rrTypeNames, type Message, type Name } from '@app/dns';
import { displayName, rcodeName, responseKind } from './response.ts';

/** The TLD a name lies in (its key), undefined for the root. */
function tldOf(name: Name): string | undefined {
  let tld = name;
  while (tld.labelCount > 1) tld = tld.parent()!;
  return tld.isRoot ? undefined : tld.key();
}

/** The TLDs of the hints' server names (`test.` for `a.root-servers.test.`), which the root must delegate. */
export function hintTlds(serverNames: readonly Name[]): Set<string> {
  return new Set(serverNames.flatMap((name) => (name.labelCount >= 2 ? [tldOf(name)!] : [])));
}

/** Whether a root server's `message` is one the real root never gives. */
export function impossibleFromRoot(message: Message, tlds: ReadonlySet<string>): boolean {
  if (message.ra) return true;
  if (message.tc) return false;
  const question = message.question[0];
  const kind = responseKind(message);
  if (kind === 'referral') return message.authority.some((rr) => rr.type === RRType.NS && rr.name.isRoot);
  if (kind === 'nxdomain') {
    const tld = question === undefined ? undefined : tldOf(question.name);
    return !message.aa || (tld !== undefined && tlds.has(tld));
  }
  if (message.rcode !== Rcode.NOERROR) return false;
  // An answer without authority: a resolver's, from its cache or its recursion.
  if (kind === 'answer') return !message.aa;
  // "No such data" without authority: the real root says it with AA (and its SOA).
  return kind === 'nodata' && !message.aa;
}

/** One answer in dig's terms, language-neutral: `test. NS → NXDOMAIN, flags qr rd ra, ANSWER: 0`. */
export function describeAnswer(message: Message): string {
  const question = message.question[0];
  const asked = question === undefined ? '?' : `${displayName(question.name)} ${rrTypeNames.get(question.type) ?? `TYPE${question.type}`}`;
  const flags = (['qr', 'aa', 'tc', 'rd', 'ra'] as const).filter((flag) => message[flag]).join(' ');
  return `${asked} → ${rcodeName(message.rcode)}, flags ${flags}, ANSWER: ${message.answer.length}`;
}
