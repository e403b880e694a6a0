import {
  base32hexEncode,
  nsec3Hash,
  RRType,
  recordIs,
  verifyWithKeys,
  type Message as DnsMessage,
  type Name,
  type Nsec3Data,
  type NsecData,
  type ResourceRecord,
} from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { byText, recordsFor, recordsOfType } from '../../net/response.ts';
import { mnemonic } from '../../rules/dnssec-tables.ts';
import type { Dnskey, Rrsig } from './records.ts';
import { familyTags, dnskeysIn, good, now, tagOf } from './records.ts';
import { nsList, textList, names, numbered, push } from './finding-lists.ts';
import { familyOff, childGroups, dnskeyQuery } from './servers.ts';
import { specs, gated } from './declaration.ts';

/** What DNSSEC10 found about the signatures over one kind of denial record (NSEC or NSEC3), per server. */
class DenialSignatures {
  readonly missing: string[] = [];
  readonly verified: string[] = [];
  readonly noKey = new Map<number, string[]>();
  readonly expired = new Map<number, string[]>();
  readonly notYetValid = new Map<number, string[]>();
  readonly invalid = new Map<number, string[]>();

  /** The reference's order of checks: a key with the tag, the time window, then each such key in turn. */
  check(
    response: DnsMessage,
    records: readonly ResourceRecord[],
    type: number,
    keys: readonly Dnskey[],
    time: number,
    ns: string[],
    unsupported: Map<string, string[]>,
  ): void {
    const owner = records[0].name;
    const rrsigs = recordsFor(response, RRType.RRSIG, owner).filter(
      (rr): rr is Rrsig => recordIs(rr, RRType.RRSIG) && rr.rdata.typeCovered === type,
    );
    if (rrsigs.length === 0) return void this.missing.push(...ns);
    const rrset = records.filter((rr) => rr.name.equals(owner));
    for (const rrsig of rrsigs) {
      const matching = keys.filter((key) => tagOf(key) === rrsig.rdata.keyTag);
      if (matching.length === 0) push(this.noKey, rrsig.rdata.keyTag, ns);
      else if (rrsig.rdata.expiration < time) push(this.expired, rrsig.rdata.keyTag, ns);
      else if (rrsig.rdata.inception > time) push(this.notYetValid, rrsig.rdata.keyTag, ns);
      else {
        let last: Dnskey | undefined;
        let result: ReturnType<typeof verifyWithKeys> | undefined;
        for (const key of matching) {
          last = key;
          result = verifyWithKeys(rrset, rrsig, [key], time);
          if (result.ok) break;
        }
        if (result?.ok) this.verified.push(...ns);
        else if (result?.reason === 'unsupported-algorithm') push(unsupported, `${tagOf(last!)}/${last!.rdata.algorithm}`, ns);
        else push(this.invalid, tagOf(last!), ns);
      }
    }
  }

  messages(word: 'NSEC' | 'NSEC3'): Message[] {
    const messages: Message[] = [];
    const keyed: [Map<number, string[]>, string][] = [
      [this.noKey, 'RRSIG_NO_DNSKEY'],
      [this.expired, 'RRSIG_EXPIRED'],
      [this.notYetValid, 'RRSIG_NOT_YET_VALID'],
      [this.invalid, 'RRSIG_VERIFY_ERROR'],
    ];
    for (const [map, suffix] of keyed)
      for (const [keytag, ns] of numbered(map)) messages.push({ tag: `DS10_${word}_${suffix}`, args: { keytag, ns_list: nsList(ns) } });
    const verified = new Set(this.verified);
    const unverified = keyed.flatMap(([map]) => [...map.values()].flat()).filter((ns) => !verified.has(ns));
    if (unverified.length > 0) messages.push({ tag: `DS10_${word}_NO_VERIFIED_SIGNATURE`, args: { ns_list: nsList(unverified) } });
    return messages;
  }
}

const nsecMandatory = [RRType.SOA, RRType.NS, RRType.DNSKEY, RRType.NSEC, RRType.RRSIG];
const nsec3Mandatory = [RRType.SOA, RRType.NS, RRType.DNSKEY, RRType.NSEC3PARAM, RRType.RRSIG];
/** A type bitmap lacking a mandatory type or holding a forbidden one. */
const wrongTypes = (types: readonly number[], mandatory: readonly number[], forbidden: readonly number[]): boolean =>
  mandatory.some((type) => !types.includes(type)) || forbidden.some((type) => types.includes(type));

/** Items in exactly one of two lists. */
function symmetricDifference(a: Iterable<string>, b: Iterable<string>): Set<string> {
  const [x, y] = [new Set(a), new Set(b)];
  return new Set([...[...x].filter((item) => !y.has(item)), ...[...y].filter((item) => !x.has(item))]);
}

const listNames = [
  'ignored',
  'withKey',
  'withoutKey',
  'multNsec',
  'multNsec3',
  'nsecInResponse',
  'nonstandard',
  'nsec3paramInAnswer',
  'nsecTypes',
  'nsec3Types',
  'nsecApex',
  'nsec3Apex',
  'nsec3paramApex',
  'nsecMissingSoa',
  'nsec3MissingSoa',
  'nsecWrongSoa',
  'nsec3WrongSoa',
  'nsecErrAnswer',
  'nsec3paramErrAnswer',
  'nsecNsec3Nodata',
  'nsec3paramNsecNodata',
  'nsecError',
  'nsec3paramError',
] as const;

/** What DNSSEC10 saw, server by server: the lists of servers per observation, and the denial records' signatures. */
class ChainObservations {
  readonly l = Object.fromEntries(listNames.map((key) => [key, [] as string[]])) as Record<(typeof listNames)[number], string[]>;
  readonly nsecSigs = new DenialSignatures();
  readonly nsec3Sigs = new DenialSignatures();
  readonly unsupported = new Map<string, string[]>();
  readonly time = now();
  readonly apex: Name;

  constructor(apex: Name) {
    this.apex = apex;
  }

  /** The answer to the NSEC query at the apex: the NSEC record, or a NODATA proof of either kind. */
  nsecAnswer(nsec: DnsMessage | undefined, keys: Dnskey[], ns: string[]): void {
    const { l } = this;
    if (!good(nsec)) l.nsecError.push(...ns);
    else if (nsec.answer.length > 0) {
      const records = recordsOfType(nsec, RRType.NSEC, ['answer']);
      if (records.length === 0) l.nsecErrAnswer.push(...ns);
      else {
        l.nsecInResponse.push(...ns);
        if (records.length > 1) l.multNsec.push(...ns);
        else if (!records[0].name.equals(this.apex)) l.nsecApex.push(...ns);
      }
    } else if (recordsOfType(nsec, RRType.NSEC, ['authority']).length > 0) {
      l.nsecInResponse.push(...ns);
      l.nonstandard.push(...ns);
      this.nsecNodata(nsec, keys, ns);
    } else if (recordsOfType(nsec, RRType.NSEC3, ['authority']).length > 0) {
      l.nsecNsec3Nodata.push(...ns);
      this.nsec3Nodata(nsec, keys, ns);
    }
  }

  /** The answer to the NSEC3PARAM query at the apex: the record, or an NSEC NODATA proof. */
  nsec3paramAnswer(nsec3param: DnsMessage | undefined, keys: Dnskey[], ns: string[]): void {
    const { l } = this;
    if (!good(nsec3param)) l.nsec3paramError.push(...ns);
    else if (nsec3param.answer.length > 0) {
      const records = recordsOfType(nsec3param, RRType.NSEC3PARAM, ['answer']);
      if (records.length === 0) l.nsec3paramErrAnswer.push(...ns);
      else {
        l.nsec3paramInAnswer.push(...ns);
        if (!records[0].name.equals(this.apex)) l.nsec3paramApex.push(...ns);
      }
    } else if (recordsOfType(nsec3param, RRType.NSEC, ['authority']).length > 0) {
      l.nsec3paramNsecNodata.push(...ns);
      this.nsecNodata(nsec3param, keys, ns);
    }
  }

  /** An NSEC NODATA proof (from the NSEC or the NSEC3PARAM query): one record, at the apex, with the apex's types, signed. */
  private nsecNodata(response: DnsMessage, keys: Dnskey[], ns: string[]): void {
    const { l } = this;
    const soa = recordsOfType(response, RRType.SOA, ['authority']);
    if (soa.length === 0) l.nsecMissingSoa.push(...ns);
    else if (!soa[0].name.equals(this.apex)) l.nsecWrongSoa.push(...ns);
    const records = recordsOfType(response, RRType.NSEC, ['authority']).filter((rr): rr is ResourceRecord<NsecData> =>
      recordIs(rr, RRType.NSEC),
    );
    if (records.length > 1) return void l.multNsec.push(...ns);
    if (!records[0].name.equals(this.apex)) l.nsecApex.push(...ns);
    else if (wrongTypes(records[0].rdata.types, nsecMandatory, [RRType.NSEC3PARAM, RRType.NSEC3])) l.nsecTypes.push(...ns);
    this.nsecSigs.check(response, records, RRType.NSEC, keys, this.time, ns, this.unsupported);
  }

  /** An NSEC3 NODATA proof for the NSEC query: one record, the apex's hash, with the apex's types, signed. */
  private nsec3Nodata(response: DnsMessage, keys: Dnskey[], ns: string[]): void {
    const { l } = this;
    const soa = recordsOfType(response, RRType.SOA, ['authority']);
    if (soa.length === 0) l.nsec3MissingSoa.push(...ns);
    else if (!soa[0].name.equals(this.apex)) l.nsec3WrongSoa.push(...ns);
    const records = recordsOfType(response, RRType.NSEC3, ['authority']).filter((rr): rr is ResourceRecord<Nsec3Data> =>
      recordIs(rr, RRType.NSEC3),
    );
    if (records.length > 1) return void l.multNsec3.push(...ns);
    const [record] = records;
    const apexHash = base32hexEncode(nsec3Hash(this.apex, record.rdata.salt, record.rdata.iterations)).toLowerCase();
    const firstLabel = Buffer.from(record.name.labels[0] ?? [])
      .toString('latin1')
      .toLowerCase();
    if (apexHash !== firstLabel) l.nsec3Apex.push(...ns);
    else if (wrongTypes(record.rdata.types, nsec3Mandatory, [RRType.NSEC, RRType.NSEC3])) l.nsec3Types.push(...ns);
    this.nsec3Sigs.check(response, records, RRType.NSEC3, keys, this.time, ns, this.unsupported);
  }

  /** The findings, in the reference's order; `all` is every server group asked or not. */
  messages(apexText: string, all: readonly string[]): Message[] {
    const { l, nsecSigs, nsec3Sigs } = this;
    const messages: Message[] = [];
    const list = (tag: string, items: readonly string[]): Message[] =>
      items.length > 0 ? [{ tag, args: { ns_list: nsList(items) } }] : [];
    const withNsec = [...l.nsecInResponse, ...l.nsec3paramNsecNodata];
    const withNsec3 = [...l.nsec3paramInAnswer, ...l.nsecNsec3Nodata];
    messages.push(
      ...list('DS10_ERR_MULT_NSEC', l.multNsec),
      ...list('DS10_ERR_MULT_NSEC3', l.multNsec3),
      ...list('DS10_NONSTANDARD_NSEC_RESPONSE', l.nonstandard),
    );
    // The reference's own set arithmetic for servers that answer one way to one query and another way to the other.
    const nsecDiff = symmetricDifference(l.nsecInResponse, l.nsec3paramNsecNodata);
    const nsecFinal = symmetricDifference(nsecDiff, withNsec3);
    if (nsecDiff.size > 0 && nsecFinal.size > 0) messages.push({ tag: 'DS10_INCONSISTENT_NSEC', args: { ns_list: textList(nsecFinal) } });
    const nsec3Diff = symmetricDifference(l.nsec3paramInAnswer, l.nsecNsec3Nodata);
    const nsec3Final = symmetricDifference(nsec3Diff, withNsec);
    if (nsec3Diff.size > 0 && nsec3Final.size > 0)
      messages.push({ tag: 'DS10_INCONSISTENT_NSEC3', args: { ns_list: textList(nsec3Final) } });
    const nsecSet = new Set(withNsec);
    const nsec3Set = new Set(withNsec3);
    const mixed = withNsec3.filter((ns) => nsecSet.has(ns));
    if (mixed.length > 0) messages.push({ tag: 'DS10_MIXED_NSEC_NSEC3', args: { ns_list: textList(mixed) } });
    if (withNsec.length > 0 && withNsec3.length === 0) messages.push(...list('DS10_HAS_NSEC', withNsec));
    if (withNsec3.length > 0 && withNsec.length === 0) messages.push(...list('DS10_HAS_NSEC3', withNsec3));
    if (withNsec3.some((ns) => !nsecSet.has(ns)) && withNsec.some((ns) => !nsec3Set.has(ns)))
      messages.push(...list('DS10_INCONSISTENT_NSEC_NSEC3', [...withNsec3, ...withNsec]));
    messages.push(
      ...list('DS10_NSEC_ERR_TYPE_LIST', l.nsecTypes),
      ...list('DS10_NSEC_MISMATCHES_APEX', l.nsecApex),
      ...(l.nsecWrongSoa.length > 0
        ? [{ tag: 'DS10_NSEC_NODATA_WRONG_SOA', args: { domain: apexText, ns_list: nsList(l.nsecWrongSoa) } }]
        : []),
      ...list('DS10_NSEC_NODATA_MISSING_SOA', l.nsecMissingSoa),
      ...list('DS10_NSEC_GIVES_ERR_ANSWER', l.nsecErrAnswer),
      ...list('DS10_NSEC_QUERY_RESPONSE_ERR', l.nsecError),
      ...list('DS10_NSEC3_ERR_TYPE_LIST', l.nsec3Types),
      ...list('DS10_NSEC3_MISMATCHES_APEX', l.nsec3Apex),
      ...(l.nsec3WrongSoa.length > 0
        ? [{ tag: 'DS10_NSEC3_NODATA_WRONG_SOA', args: { domain: apexText, ns_list: nsList(l.nsec3WrongSoa) } }]
        : []),
      ...list('DS10_NSEC3_NODATA_MISSING_SOA', l.nsec3MissingSoa),
      ...list('DS10_NSEC3PARAM_GIVES_ERR_ANSWER', l.nsec3paramErrAnswer),
      ...list('DS10_NSEC3PARAM_MISMATCHES_APEX', l.nsec3paramApex),
      ...list('DS10_NSEC3PARAM_QUERY_RESPONSE_ERR', l.nsec3paramError),
      ...list('DS10_NSEC_MISSING_SIGNATURE', nsecSigs.missing),
      ...list('DS10_NSEC3_MISSING_SIGNATURE', nsec3Sigs.missing),
      ...nsecSigs.messages('NSEC'),
      ...nsec3Sigs.messages('NSEC3'),
    );
    for (const [key, ns] of [...this.unsupported].sort(([a], [b]) => byText(a, b))) {
      const [keytag, algo] = key.split('/').map(Number);
      messages.push({
        tag: 'DS10_ALGO_NOT_SUPPORTED_BY_ZM',
        args: { keytag, algo_num: algo, algo_mnemo: mnemonic(algo), ns_ip_list: nsList(ns) },
      });
    }
    if (l.withoutKey.length > 0)
      messages.push(...list(l.withKey.length > 0 ? 'DS10_SERVER_NO_DNSSEC' : 'DS10_ZONE_NO_DNSSEC', l.withoutKey));
    const accounted = new Set([...l.ignored, ...l.withoutKey, ...withNsec, ...withNsec3]);
    const missing = all.filter((ns) => !accounted.has(ns));
    if (missing.length > 0) messages.push({ tag: 'DS10_EXPECTED_NSEC_NSEC3_MISSING', args: { ns_list: textList(missing) } });
    return messages;
  }
}

/** DNSSEC10: the zone's NSEC or NSEC3 chain, seen from the apex: NSEC and NSEC3PARAM queries, their NODATA proofs and signatures. */
export const dnssec10: TestCase = {
  id: 'DNSSEC10',
  spec: `${specs}/dnssec10.md`,
  tags: [
    'DS10_ALGO_NOT_SUPPORTED_BY_ZM',
    'DS10_ERR_MULT_NSEC',
    'DS10_ERR_MULT_NSEC3',
    'DS10_EXPECTED_NSEC_NSEC3_MISSING',
    'DS10_HAS_NSEC',
    'DS10_HAS_NSEC3',
    'DS10_INCONSISTENT_NSEC',
    'DS10_INCONSISTENT_NSEC3',
    'DS10_INCONSISTENT_NSEC_NSEC3',
    'DS10_MIXED_NSEC_NSEC3',
    'DS10_NONSTANDARD_NSEC_RESPONSE',
    'DS10_NSEC3PARAM_GIVES_ERR_ANSWER',
    'DS10_NSEC3PARAM_MISMATCHES_APEX',
    'DS10_NSEC3PARAM_QUERY_RESPONSE_ERR',
    'DS10_NSEC3_ERR_TYPE_LIST',
    'DS10_NSEC3_MISMATCHES_APEX',
    'DS10_NSEC3_MISSING_SIGNATURE',
    'DS10_NSEC3_NODATA_MISSING_SOA',
    'DS10_NSEC3_NODATA_WRONG_SOA',
    'DS10_NSEC3_NO_VERIFIED_SIGNATURE',
    'DS10_NSEC3_RRSIG_EXPIRED',
    'DS10_NSEC3_RRSIG_NOT_YET_VALID',
    'DS10_NSEC3_RRSIG_NO_DNSKEY',
    'DS10_NSEC3_RRSIG_VERIFY_ERROR',
    'DS10_NSEC_ERR_TYPE_LIST',
    'DS10_NSEC_GIVES_ERR_ANSWER',
    'DS10_NSEC_MISMATCHES_APEX',
    'DS10_NSEC_MISSING_SIGNATURE',
    'DS10_NSEC_NODATA_MISSING_SOA',
    'DS10_NSEC_NODATA_WRONG_SOA',
    'DS10_NSEC_NO_VERIFIED_SIGNATURE',
    'DS10_NSEC_QUERY_RESPONSE_ERR',
    'DS10_NSEC_RRSIG_EXPIRED',
    'DS10_NSEC_RRSIG_NOT_YET_VALID',
    'DS10_NSEC_RRSIG_NO_DNSKEY',
    'DS10_NSEC_RRSIG_VERIFY_ERROR',
    'DS10_SERVER_NO_DNSSEC',
    'DS10_ZONE_NO_DNSSEC',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const seen = new ChainObservations(zone.name);
    const groups = await childGroups(context);
    const asked = groups.filter((group) => {
      if (!familyOff(context, group[0], ['DNSKEY', 'NSEC', 'NSEC3PARAM'], messages)) return true;
      seen.l.ignored.push(...names(group));
      return false;
    });
    const answers = await Promise.all(
      asked.map(async (group) => {
        const server = group[0];
        const dnskey = await dnskeyQuery(server, zone.name);
        if (!good(dnskey) || dnskeysIn(dnskey, zone.name).length === 0) return { dnskey };
        const [nsec, nsec3param] = await Promise.all(
          [RRType.NSEC, RRType.NSEC3PARAM].map((type) => server.query(zone.name, type, { dnssec: true })),
        );
        return { dnskey, nsec, nsec3param };
      }),
    );
    asked.forEach((group, i) => {
      const { dnskey, nsec, nsec3param } = answers[i];
      const ns = names(group);
      if (!good(dnskey)) return void seen.l.ignored.push(...ns);
      const keys = dnskeysIn(dnskey, zone.name);
      if (keys.length === 0) return void seen.l.withoutKey.push(...ns);
      seen.l.withKey.push(...ns);
      seen.nsecAnswer(nsec, keys, ns);
      seen.nsec3paramAnswer(nsec3param, keys, ns);
    });
    return [...messages, ...seen.messages(zone.nameText, groups.flat().map(String))];
  },
};
