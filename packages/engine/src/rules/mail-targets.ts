// Zone09's verdict on the MX answers of a zone's servers: do they all answer, authoritatively, with the
// same MX set; is a Null MX (RFC 7505) alone and of preference 0; is there a mail target at all?
import type { Message } from '../finding.ts';

export interface MxRecordSeen {
  preference: number;
  /** As the reference shows it: final dot included, '.' for a Null MX. */
  exchange: string;
  /** The record in a form that differs exactly when the records differ (owner, TTL, data; lower case). */
  key: string;
}

/** What one server (one address, counted once) said to the MX query, once it had answered SOA authoritatively. */
export type MxOutcome = { address: string; nsName: string } & (
  | { kind: 'no-response' }
  | { kind: 'rcode'; rcode: string }
  | { kind: 'non-authoritative' }
  | { kind: 'no-mx' }
  | { kind: 'mx'; records: MxRecordSeen[] }
);

/** Where the zone sits: the root and TLDs are not expected to receive mail, nor reverse zones. */
export interface ZonePlace {
  isRoot: boolean;
  isTld: boolean;
  isArpa: boolean;
}

const list = (items: readonly string[]): string => items.join(';');
const sorted = (items: readonly string[]): string[] => [...items].sort();

export function mailTargetMessages(outcomes: readonly MxOutcome[], place: ZonePlace): Message[] {
  const messages: Message[] = [];
  const addressesOf = (kind: MxOutcome['kind']): string[] => outcomes.filter((o) => o.kind === kind).map((o) => o.address);
  const withMx = new Map(outcomes.flatMap((o) => (o.kind === 'mx' ? [[o.address, o.records] as const] : [])));

  const silent = addressesOf('no-response');
  if (silent.length > 0) messages.push({ tag: 'Z09_NO_RESPONSE_MX_QUERY', args: { ns_ip_list: list(sorted(silent)) } });
  const byRcode = new Map<string, string[]>();
  for (const o of outcomes) if (o.kind === 'rcode') byRcode.set(o.rcode, [...(byRcode.get(o.rcode) ?? []), o.address]);
  for (const [rcode, addresses] of byRcode) messages.push({ tag: 'Z09_UNEXPECTED_RCODE_MX', args: { rcode, ns_ip_list: list(sorted(addresses)) } });
  const nonAuthoritative = addressesOf('non-authoritative');
  if (nonAuthoritative.length > 0) messages.push({ tag: 'Z09_NON_AUTH_MX_RESPONSE', args: { ns_ip_list: list(sorted(nonAuthoritative)) } });

  const without = addressesOf('no-mx');
  if (without.length > 0 && withMx.size > 0) {
    messages.push({ tag: 'Z09_INCONSISTENT_MX', args: {} });
    messages.push({ tag: 'Z09_NO_MX_FOUND', args: { ns_ip_list: list(sorted(without)) } });
    messages.push({ tag: 'Z09_MX_FOUND', args: { ns_ip_list: list(sorted([...withMx.keys()])) } });
  }
  if (withMx.size === 0) {
    if (without.length > 0 && !place.isRoot && !place.isTld && !place.isArpa) messages.push({ tag: 'Z09_MISSING_MAIL_TARGET', args: {} });
    return messages;
  }

  const sets = [...withMx.values()];
  const fingerprint = (records: readonly MxRecordSeen[]): string => JSON.stringify(records.map((r) => r.key).sort());
  if (sets.some((records) => fingerprint(records) !== fingerprint(sets[0]))) {
    messages.push({ tag: 'Z09_INCONSISTENT_MX_DATA', args: {} });
    // One line per name server name: what its first address answered.
    const byName = new Map<string, string[]>();
    for (const o of outcomes) byName.set(o.nsName, [...(byName.get(o.nsName) ?? []), o.address]);
    for (const name of sorted([...byName.keys()])) {
      const addresses = byName.get(name)!;
      const targets = (withMx.get(addresses[0]) ?? []).map((r) => r.exchange);
      messages.push({ tag: 'Z09_MX_DATA', args: { mailtarget_list: list(targets), ns_ip_list: list(addresses) } });
    }
    return messages;
  }

  const records = sets[0];
  const nullMx = records.filter((r) => r.exchange === '.');
  if (nullMx.length > 0) {
    if (records.length > 1) messages.push({ tag: 'Z09_NULL_MX_WITH_OTHER_MX', args: {} });
    if (nullMx.some((r) => r.preference > 0)) messages.push({ tag: 'Z09_NULL_MX_NON_ZERO_PREF', args: {} });
  } else if (place.isRoot) {
    messages.push({ tag: 'Z09_ROOT_EMAIL_DOMAIN', args: {} });
  } else if (place.isTld) {
    messages.push({ tag: 'Z09_TLD_EMAIL_DOMAIN', args: {} });
  } else {
    messages.push({ tag: 'Z09_MX_DATA', args: { ns_ip_list: list(sorted([...withMx.keys()])), mailtarget_list: list(records.map((r) => r.exchange)) } });
  }
  return messages;
}
