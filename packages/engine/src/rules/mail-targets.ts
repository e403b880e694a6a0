// Zone09's verdict on the MX answers of a zone's servers: do they all answer, authoritatively, with the
// same MX set; is a Null MX (RFC 7505) alone and of preference 0; does a zone that should take mail
// have an MX, and one that should not (the root, a TLD, a reverse zone) none?
import type { Message } from '../finding.ts';

export interface MxRecordSeen {
  preference: number;
  /** In lower case with the final dot; '.' for a Null MX. */
  exchange: string;
}

/** What one server (one address, counted once) said to the MX query, once it had answered SOA authoritatively. */
export type MxOutcome = { ns: string } & (
  { kind: 'no-response' } | { kind: 'rcode'; rcode: string } | { kind: 'non-authoritative' } | { kind: 'mx'; records: MxRecordSeen[] }
);

/** Where the zone sits: the root, TLDs and reverse zones are not expected to receive mail. */
export interface ZonePlace {
  isRoot: boolean;
  isTld: boolean;
  isArpa: boolean;
}

const list = (items: readonly string[]): string => [...items].sort().join(';');

/** One MX record as the findings show it: "10 mail.example.test" ("0 ." for a Null MX). */
const rdataText = (r: MxRecordSeen): string => `${r.preference} ${r.exchange === '.' ? '.' : r.exchange.slice(0, -1)}`;

/** The set's records once each, by preference then exchange. */
function normalSet(records: readonly MxRecordSeen[]): MxRecordSeen[] {
  const unique = new Map(records.map((r) => [rdataText(r), r]));
  return [...unique.values()].sort(
    (x, y) => x.preference - y.preference || (x.exchange < y.exchange ? -1 : x.exchange > y.exchange ? 1 : 0),
  );
}

export function mailTargetMessages(outcomes: readonly MxOutcome[], place: ZonePlace): Message[] {
  const messages: Message[] = [];
  const serversWith = (kind: MxOutcome['kind']): string[] => outcomes.filter((o) => o.kind === kind).map((o) => o.ns);

  const silent = serversWith('no-response');
  if (silent.length > 0) messages.push({ tag: 'Z09_NO_RESPONSE_MX_QUERY', args: { ns_list: list(silent) } });
  const byRcode = new Map<string, string[]>();
  for (const o of outcomes) if (o.kind === 'rcode') byRcode.set(o.rcode, [...(byRcode.get(o.rcode) ?? []), o.ns]);
  for (const [rcode, servers] of byRcode) messages.push({ tag: 'Z09_UNEXPECTED_RCODE_MX', args: { rcode, ns_list: list(servers) } });
  const nonAuthoritative = serversWith('non-authoritative');
  if (nonAuthoritative.length > 0) messages.push({ tag: 'Z09_NON_AUTH_MX_RESPONSE', args: { ns_list: list(nonAuthoritative) } });

  // Servers by the MX set they gave (an empty set: no MX).
  const without: string[] = [];
  const sets = new Map<string, { servers: string[]; records: MxRecordSeen[] }>();
  for (const o of outcomes) {
    if (o.kind !== 'mx') continue;
    const records = normalSet(o.records);
    if (records.length === 0) {
      without.push(o.ns);
      continue;
    }
    const key = records.map(rdataText).join(';');
    const set = sets.get(key) ?? { servers: [], records };
    set.servers.push(o.ns);
    sets.set(key, set);
  }
  for (const [key, set] of [...sets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    messages.push({ tag: 'Z09_MX_DATA', args: { ns_list: list(set.servers), mxrdata_list: key } });
  }
  if (without.length > 0 && sets.size > 0) {
    messages.push({ tag: 'Z09_INCONSISTENT_MX', args: {} });
    messages.push({ tag: 'Z09_NO_MX_FOUND', args: { ns_list: list(without) } });
    messages.push({ tag: 'Z09_MX_FOUND', args: { ns_list: list([...sets.values()].flatMap((s) => s.servers)) } });
  }
  if (sets.size > 1) {
    messages.push({ tag: 'Z09_INCONSISTENT_MX_DATA', args: {} });
  } else if (sets.size === 1) {
    const [{ records }] = sets.values();
    const nullMx = records.find((r) => r.exchange === '.');
    if (nullMx) {
      if (records.length > 1) messages.push({ tag: 'Z09_NULL_MX_WITH_OTHER_MX', args: {} });
      else if (nullMx.preference !== 0) messages.push({ tag: 'Z09_NULL_MX_NON_ZERO_PREF', args: {} });
      else messages.push({ tag: 'Z09_VALID_NULL_MX', args: {} });
    } else if (place.isRoot) messages.push({ tag: 'Z09_ROOT_EMAIL_DOMAIN', args: {} });
    else if (place.isTld) messages.push({ tag: 'Z09_TLD_EMAIL_DOMAIN', args: {} });
    else if (place.isArpa) messages.push({ tag: 'Z09_ARPA_EMAIL_DOMAIN', args: {} });
  }
  const noMailExpected = place.isRoot || place.isTld || place.isArpa;
  if (without.length > 0 && sets.size === 0) {
    messages.push(
      noMailExpected
        ? { tag: 'Z09_NO_MX_FOUND_OR_EXPECTED', args: {} }
        : { tag: 'Z09_MISSING_MAIL_EXCHANGE', args: { ns_list: list(without) } },
    );
  }
  if (without.length === 0 && sets.size === 0) messages.push({ tag: 'Z09_NO_SERVERS_MX_RESPONSE', args: {} });
  return messages;
}
