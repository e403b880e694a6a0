// DNSSEC: is the chain of trust from the parent intact, and will it stay so? Tags, arguments and
// levels follow the reference engine 9.0 (specifications: docs/public/specifications/tests/DNSSEC-TP/
// in zonemaster/zonemaster). DNSSEC07 and DNSSEC11 run first; when DNSSEC07 finds the zone not signed
// (DS07_NOT_SIGNED) nothing else here runs. There is no DNSSEC12.
import {
  base32hexEncode, checkDs, ipBytes, isSupportedAlgorithm, type Name, nsec3Hash, keyTag, RRType, recordIs, rsaKeySize, typeToString, verifyWithKeys,
  type DnskeyData, type DnskeyRecord, type DsCheck, type DsData, type Message as DnsMessage, type Nsec3Data, type NsecData,
  type RecordInput, type ResourceRecord, type RrsigData,
} from '@app/dns';
import type { FindingArgs, Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { withDelegationGlue } from '../zone/methods-v2.ts';
import { byText, rcodeName, recordsFor, recordsOfType } from '../net/response.ts';
import { algorithm, algorithmStatuses, digestName, digestTag, digestTags, mnemonic } from '../rules/dnssec-tables.ts';

const specs = 'zonemaster/zonemaster docs/specifications/tests/DNSSEC-TP';

// RSA key sizes (DNSSEC14), per algorithm: minimum, maximum, recommended.
const rsaSizes: Record<number, { min: number; max: number; rec: number }> = {
  5: { min: 512, max: 4096, rec: 2048 }, 7: { min: 512, max: 4096, rec: 2048 }, 8: { min: 512, max: 4096, rec: 2048 }, 10: { min: 1024, max: 4096, rec: 2048 },
};


const ZONE_KEY = 0x0100;
const SEP = 0x0001;
const familyTags = ['IPV4_DISABLED', 'IPV6_DISABLED'] as const;

// ---- reading responses ----

type Dnskey = ResourceRecord<DnskeyData>;
type Rrsig = ResourceRecord<RrsigData>;
const dnskeysIn = (m: DnsMessage, owner?: Name): Dnskey[] => (owner ? recordsFor(m, RRType.DNSKEY, owner, ['answer']) : recordsOfType(m, RRType.DNSKEY, ['answer'])).filter((rr): rr is Dnskey => recordIs(rr, RRType.DNSKEY));
const rrsigsIn = (m: DnsMessage, section: 'answer' | 'authority' = 'answer', owner?: Name): Rrsig[] =>
  (owner ? recordsFor(m, RRType.RRSIG, owner, [section]) : recordsOfType(m, RRType.RRSIG, [section])).filter((rr): rr is Rrsig => recordIs(rr, RRType.RRSIG));
const dsIn = (m: DnsMessage, type: number, owner?: Name): ResourceRecord<DsData>[] =>
  (owner ? recordsFor(m, type, owner, ['answer']) : recordsOfType(m, type, ['answer'])).filter((rr): rr is ResourceRecord<DsData> => recordIs(rr, RRType.DS) || recordIs(rr, RRType.CDS));
const good = (m: DnsMessage | undefined): m is DnsMessage => m !== undefined && m.rcode === 0 && m.aa;
const hasDo = (m: DnsMessage): boolean => m.edns?.do === true;
const now = (): number => Math.floor(Date.now() / 1000);
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const dsKey = (ds: DsData): string => `${ds.keyTag}/${ds.algorithm}/${ds.digestType}/${hex(ds.digest)}`;
const tagOf = (key: DnskeyRecord): number => keyTag(key.rdata);

/** "a;b;c": sorted without repeats, as the reference lists addresses. */
const ipList = (ips: Iterable<string>): string => [...new Set(ips)].sort(byText).join(';');

/** Addresses per key (key tag, name/type, ...), reported sorted by key. */
class Grouped {
  readonly #map = new Map<string, string[]>();
  add(key: string | number, ip: string): void {
    const k = String(key);
    this.#map.set(k, [...(this.#map.get(k) ?? []), ip]);
  }
  messages(tag: string, args: (key: string) => FindingArgs = (key) => ({ keytag: Number(key) })): Message[] {
    return [...this.#map.keys()].sort(byText).map((key) => ({ tag, args: { ...args(key), ns_ip_list: ipList(this.#map.get(key)!) } }));
  }
}

/** One message with every address, when there is any. */
const listed = (tag: string, ips: Iterable<string>): Message[] => {
  const list = ipList(ips);
  return list === '' ? [] : [{ tag, args: { ns_ip_list: list } }];
};

// ---- servers ----

/** IPV4_/IPV6_DISABLED for a server of a family that is off, one per record type; true when it is off. */
function familyOff(context: TestContext, server: Nameserver, rrtypes: readonly string[], into: Message[]): boolean {
  const enabled = server.family === 4 ? context.profile.net.ipv4 : context.profile.net.ipv6;
  if (enabled) return false;
  for (const rrtype of rrtypes) into.push({ tag: `IPV${server.family}_DISABLED`, args: { ns: server.toString(), rrtype } });
  return true;
}

const byAddress = (servers: readonly Nameserver[]): Nameserver[] => {
  const seen = new Set<string>();
  return servers.filter((s) => !seen.has(s.address) && seen.add(s.address));
};

/** The zone's name servers (delegation and zone, Method 4 ∪ 5) whose family is on, once per address; the others reported. */
async function childServers(context: TestContext, rrtypes: readonly string[], into: Message[], perAddress = true): Promise<Nameserver[]> {
  const all = await context.zone.allServers();
  return (perAddress ? byAddress(all) : all).filter((server) => !familyOff(context, server, rrtypes, into));
}

async function parentServers(context: TestContext, into: Message[]): Promise<Nameserver[]> {
  const parent = await context.zone.parent();
  const sorted = [...(parent?.servers ?? [])].sort((a, b) => byText(a.toString(), b.toString()));
  return byAddress(sorted).filter((server) => !familyOff(context, server, ['DS'], into));
}

/** Servers grouped per address, in the order given: the reference asks each address once and names every server on it. */
function perAddress(servers: readonly Nameserver[]): Nameserver[][] {
  const groups = new Map<string, Nameserver[]>();
  for (const server of servers) groups.set(server.address, [...(groups.get(server.address) ?? []), server]);
  return [...groups.values()];
}

/** The reference's order of name servers: by name, then IPv4 before IPv6, then by address. */
function byServer(a: string, b: string): number {
  const [x, y] = [a.split('/'), b.split('/')];
  if (x.length < 2 || y.length < 2 || x[0] !== y[0]) return byText(a, b);
  const [p, q] = [ipBytes(x[1]), ipBytes(y[1])];
  return p && q ? p.length - q.length || Buffer.compare(p, q) : byText(a, b);
}
/** "name/ip;name/ip": without repeats, in the reference's order of name servers. */
const nsList = (servers: Iterable<Nameserver | string>): string => [...new Set([...servers].map(String))].sort(byServer).join(';');
/** The same for lists the reference has turned into text before sorting them (its set arithmetic does). */
const textList = (servers: Iterable<string>): string => [...new Set(servers)].sort(byText).join(';');
const names = (group: readonly Nameserver[]): string[] => group.map(String);

/** Keys of a map in number order, as text for the args of a finding. */
const numbered = <T>(map: Map<number, T>): [number, T][] => [...map].sort(([a], [b]) => a - b);
const push = <K>(map: Map<K, string[]>, key: K, items: readonly string[]): void => {
  map.set(key, [...(map.get(key) ?? []), ...items]);
};

/** DS records given for an undelegated test, which the reference puts in place of the parent's answer. */
const givenDs = (context: TestContext): boolean => (context.zone.undelegated?.ds.length ?? 0) > 0;

/** The parent's name servers asked for DS, per address; none for the root or an undelegated test with name servers given. */
async function parentGroups(context: TestContext): Promise<Nameserver[][]> {
  const { zone } = context;
  if (zone.name.isRoot || (zone.undelegated?.nameservers.length ?? 0) > 0) return [];
  const parent = await zone.parent();
  return perAddress([...(parent?.servers ?? [])].sort((a, b) => byText(a.toString(), b.toString())));
}

/** The zone's name servers (delegation and zone, Method 4 ∪ 5, the glue as given), per address. */
const childGroups = async ({ zone }: TestContext): Promise<Nameserver[][]> => perAddress(await withDelegationGlue(zone, await zone.allServers()));

/** The DS records the parent's servers give (DO set, TCP on truncation), without repeats; in an undelegated test, those given. */
async function parentDsRecords(context: TestContext, into: Message[]): Promise<DsData[]> {
  const { zone } = context;
  if (zone.undelegated) return (await zone.dsFromParent()).map((d) => ({ keyTag: d.keytag, algorithm: d.algorithm, digestType: d.digtype, digest: Buffer.from(d.digest, 'hex') }));
  const servers = await parentServers(context, into);
  const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.DS, { dnssec: true })));
  const found = new Map<string, DsData>();
  for (const response of responses) {
    if (!good(response) || !hasDo(response)) continue;
    for (const ds of dsIn(response, RRType.DS, zone.name)) found.set(dsKey(ds.rdata), ds.rdata);
  }
  return [...found.values()];
}

const dnskeyQuery = (server: Nameserver, zone: Name): Promise<DnsMessage | undefined> => server.query(zone, RRType.DNSKEY, { dnssec: true });

/** The rule DNSSEC08/09/10 share for the DNSKEY answer they verify with. */
async function zoneKeysFrom(server: Nameserver, zone: Name): Promise<Dnskey[] | undefined> {
  const response = await dnskeyQuery(server, zone);
  if (!good(response)) return undefined;
  const keys = dnskeysIn(response, zone);
  return keys.length > 0 ? keys : undefined;
}

type SignatureFault = 'unsupported' | 'no-key' | 'invalid' | 'not-yet-valid' | 'expired' | undefined;

/** The reference's order of checks on one RRSIG: time window first when asked, then algorithm, key, signature. */
function signatureFault(rrset: readonly RecordInput[], rrsig: Rrsig, keys: readonly DnskeyRecord[], time: number, window: boolean): SignatureFault {
  if (window && rrsig.rdata.inception > time) return 'not-yet-valid';
  if (window && rrsig.rdata.expiration < time) return 'expired';
  if (!isSupportedAlgorithm(rrsig.rdata.algorithm)) return 'unsupported';
  if (!keys.some((key) => tagOf(key) === rrsig.rdata.keyTag)) return 'no-key';
  return verifyWithKeys(rrset, rrsig, keys, time).ok ? undefined : 'invalid';
}

/** ALGO_NOT_SUPPORTED_BY_ZM per key tag and algorithm. */
class Unsupported {
  readonly #grouped = new Grouped();
  add(rrsig: Rrsig, ip: string): void {
    this.#grouped.add(`${rrsig.rdata.keyTag}/${rrsig.rdata.algorithm}`, ip);
  }
  messages(tag: string): Message[] {
    return this.#grouped.messages(tag, (key) => {
      const [keytag, algo] = key.split('/').map(Number);
      return { keytag, algo_num: algo, algo_mnemo: mnemonic(algo) };
    });
  }
}

// ---- the gate ----

// The reference runs DNSSEC07 and DNSSEC11 first, and nothing else of the module once DNSSEC07 finds the zone not signed.
const gated = {
  after: ['DNSSEC07'],
  precondition: (context: TestContext): { run: boolean } => ({ run: !context.earlier.some((f) => f.testcase === 'DNSSEC07' && f.tag === 'DS07_NOT_SIGNED') }),
} as const;

// ---- test cases ----

/** DNSSEC01: the digest types of the DS records at the parent. */
export const dnssec01: TestCase = {
  id: 'DNSSEC01',
  spec: `${specs}/dnssec01.md`,
  tags: [
    ...digestTags, 'DS01_DS_ALGO_2_MISSING', 'DS01_NO_RESPONSE', 'DS01_PARENT_SERVER_NO_DS', 'DS01_PARENT_ZONE_NO_DS', 'DS01_ROOT_N_NO_UNDEL_DS', 'DS01_UNDEL_N_NO_UNDEL_DS',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    // digest type -> key tag -> servers ('-' for DS records given to an undelegated test)
    const seen = new Map<number, Map<number, string[]>>();
    const [sha256, other] = [new Map<number, string[]>(), new Map<number, string[]>()];
    const [ignored, without, withDs] = [[], [], []] as string[][];
    const note = (digestType: number, keyTag: number, servers: string[]): void => {
      if (!seen.has(digestType)) seen.set(digestType, new Map());
      push(seen.get(digestType)!, keyTag, servers);
      push(digestType === 2 ? sha256 : other, keyTag, servers);
    };
    const given = givenDs(context) ? await zone.dsFromParent() : [];
    if (given.length > 0) {
      for (const ds of given) note(ds.digtype, ds.keytag, ['-']);
      withDs.push('-');
    } else {
      const groups = (await parentGroups(context)).filter((group) => !familyOff(context, group[0], ['DS'], messages));
      const responses = await Promise.all(groups.map((group) => group[0].query(zone.name, RRType.DS, { dnssec: true })));
      groups.forEach((group, i) => {
        const response = responses[i];
        if (!good(response) || !hasDo(response)) return void ignored.push(...names(group));
        const records = dsIn(response, RRType.DS);
        if (!records.some((ds) => ds.name.equals(zone.name))) return void without.push(...names(group));
        withDs.push(...names(group));
        for (const ds of records) note(ds.rdata.digestType, ds.rdata.keyTag, names(group));
      });
    }
    for (const tag of digestTags) {
      for (const [digest, keys] of numbered(seen)) {
        if (digestTag(digest) !== tag) continue;
        for (const [keytag, servers] of numbered(keys)) messages.push({ tag, args: { ns_list: nsList(servers), keytag, ds_algo_num: digest, ds_algo_descr: digestName(digest) } });
      }
    }
    for (const [keytag, servers] of numbered(other)) {
      const with256 = new Set(sha256.get(keytag) ?? []);
      const missing = servers.filter((server) => !with256.has(server));
      if (missing.length > 0) messages.push({ tag: 'DS01_DS_ALGO_2_MISSING', args: { ns_list: textList(missing), keytag } });
    }
    if (without.length === 0 && withDs.length === 0 && ignored.length > 0) messages.push({ tag: 'DS01_NO_RESPONSE', args: { ns_list: nsList(ignored) } });
    if (zone.name.isRoot && given.length === 0) messages.push({ tag: 'DS01_ROOT_N_NO_UNDEL_DS', args: {} });
    if (!zone.name.isRoot && (zone.undelegated?.nameservers.length ?? 0) > 0 && given.length === 0) messages.push({ tag: 'DS01_UNDEL_N_NO_UNDEL_DS', args: {} });
    if (without.length > 0) messages.push({ tag: withDs.length === 0 ? 'DS01_PARENT_ZONE_NO_DS' : 'DS01_PARENT_SERVER_NO_DS', args: { ns_list: nsList(without) } });
    return messages;
  },
};

/** checkDs, where (as in 9.0) a computed digest matches only a key of the DS record's algorithm. */
function dsCheck(owner: Name, ds: DsData, keys: readonly Dnskey[], rrsigs: readonly Rrsig[]): DsCheck {
  const check = checkDs(owner, ds, keys, rrsigs, now());
  if (check.digest !== 'match' || check.key?.rdata.algorithm === ds.algorithm) return check;
  const same = checkDs(owner, ds, keys.filter((key) => key.rdata.algorithm === ds.algorithm), rrsigs, now());
  if (same.digest === 'match') return same;
  const key = keys.find((candidate) => tagOf(candidate) === ds.keyTag)!;
  return { ...check, key, digest: 'mismatch', zoneKey: (key.rdata.flags & ZONE_KEY) !== 0, sep: (key.rdata.flags & SEP) !== 0 };
}

/** DNSSEC02: each DS names a zone key that signs the DNSKEY RRset, on every server. */
export const dnssec02: TestCase = {
  id: 'DNSSEC02',
  spec: `${specs}/dnssec02.md`,
  tags: [
    'DS02_ALGO_NOT_SUPPORTED_BY_ZM', 'DS02_DNSKEY_NOT_FOR_ZONE_SIGNING', 'DS02_DNSKEY_NOT_SEP', 'DS02_DNSKEY_NOT_SIGNED_BY_ANY_DS', 'DS02_NO_DNSKEY_FOR_DS',
    'DS02_NO_MATCHING_DNSKEY_RRSIG', 'DS02_NO_MATCH_DS_DNSKEY', 'DS02_NO_VALID_DNSKEY_FOR_ANY_DS', 'DS02_RRSIG_NOT_VALID_BY_DNSKEY', ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const dsRecords = await parentDsRecords(context, messages);
    if (dsRecords.length === 0) return messages;
    const [noKey, mismatch, notZone, notSep, unsignedByDs, invalid] = [new Grouped(), new Grouped(), new Grouped(), new Grouped(), new Grouped(), new Grouped()];
    const unsupported = new Unsupported();
    const responding: string[] = [];
    const withKey = new Set<string>();
    const withSignature = new Set<string>();
    const servers = await childServers(context, ['DNSKEY'], messages);
    const responses = await Promise.all(servers.map((server) => dnskeyQuery(server, zone.name)));
    servers.forEach((server, i) => {
      const response = responses[i];
      if (!good(response) || !hasDo(response)) return;
      const keys = dnskeysIn(response, zone.name);
      if (keys.length === 0) return;
      const ip = server.address;
      responding.push(ip);
      const rrsigs = rrsigsIn(response, 'answer', zone.name);
      // The reference checks the signatures of every key matched so far on this server, again for each DS.
      const matched = new Map<number, true>();
      for (const ds of dsRecords) {
        const check = dsCheck(zone.name, ds, keys, rrsigs);
        if (!check.key) {
          noKey.add(ds.keyTag, ip);
          continue;
        }
        if (check.digest === 'mismatch') mismatch.add(ds.keyTag, ip);
        if (!check.zoneKey) {
          notZone.add(ds.keyTag, ip);
          continue;
        }
        if (!check.sep) notSep.add(ds.keyTag, ip);
        matched.set(tagOf(check.key), true);
        withKey.add(ip);
        for (const tag of matched.keys()) {
          let valid = 0;
          const signatures = rrsigs.filter((rrsig) => rrsig.rdata.keyTag === tag);
          for (const rrsig of signatures) {
            const result = verifyWithKeys(keys, rrsig, keys, now());
            if (result.ok) valid++;
            else if (result.reason === 'unsupported-algorithm') unsupported.add(rrsig, ip);
            else invalid.add(rrsig.rdata.keyTag, ip);
          }
          if (valid === 0) unsignedByDs.add(tag, ip);
          else withSignature.add(ip);
        }
      }
    });
    messages.push(
      ...noKey.messages('DS02_NO_DNSKEY_FOR_DS'),
      ...mismatch.messages('DS02_NO_MATCH_DS_DNSKEY'),
      ...notZone.messages('DS02_DNSKEY_NOT_FOR_ZONE_SIGNING'),
      ...notSep.messages('DS02_DNSKEY_NOT_SEP'),
      ...unsignedByDs.messages('DS02_NO_MATCHING_DNSKEY_RRSIG'),
      ...unsupported.messages('DS02_ALGO_NOT_SUPPORTED_BY_ZM'),
      ...invalid.messages('DS02_RRSIG_NOT_VALID_BY_DNSKEY'),
    );
    const noValidKey = responding.filter((ip) => !withKey.has(ip));
    const notSigned = responding.filter((ip) => !withSignature.has(ip));
    messages.push(...(noValidKey.length > 0 ? listed('DS02_NO_VALID_DNSKEY_FOR_ANY_DS', noValidKey) : listed('DS02_DNSKEY_NOT_SIGNED_BY_ANY_DS', notSigned)));
    return messages;
  },
};

/** DNSSEC03: the NSEC3 parameters (RFC 9276: SHA-1, no extra iterations, no salt), from the NSEC3 record of the apex's NODATA answer. */
export const dnssec03: TestCase = {
  id: 'DNSSEC03',
  spec: `${specs}/dnssec03.md`,
  tags: [
    'DS03_ERROR_RESPONSE_NSEC_QUERY', 'DS03_ERR_MULT_NSEC3', 'DS03_ILLEGAL_HASH_ALGO', 'DS03_ILLEGAL_ITERATION_VALUE', 'DS03_ILLEGAL_SALT_LENGTH',
    'DS03_INCONSISTENT_HASH_ALGO', 'DS03_INCONSISTENT_ITERATION', 'DS03_INCONSISTENT_NSEC3_FLAGS', 'DS03_INCONSISTENT_SALT_LENGTH', 'DS03_LEGAL_EMPTY_SALT',
    'DS03_LEGAL_HASH_ALGO', 'DS03_LEGAL_ITERATION_VALUE', 'DS03_NO_DNSSEC_SUPPORT', 'DS03_NO_NSEC3', 'DS03_NO_RESPONSE_NSEC_QUERY', 'DS03_NSEC3_OPT_OUT_DISABLED',
    'DS03_NSEC3_OPT_OUT_ENABLED_NON_TLD', 'DS03_NSEC3_OPT_OUT_ENABLED_TLD', 'DS03_SERVER_NO_DNSSEC_SUPPORT', 'DS03_SERVER_NO_NSEC3', 'DS03_UNASSIGNED_FLAG_USED',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const lists = { withoutKey: [], withKey: [], withoutNsec3: [], withNsec3: [], multiple: [], noResponse: [], errorResponse: [] } as Record<string, string[]>;
    const [hashAlgorithm, flags, iterations, saltLength] = [new Map<number, string[]>(), new Map<number, string[]>(), new Map<number, string[]>(), new Map<number, string[]>()];
    const servers = await childServers(context, ['DNSKEY', 'NSEC'], messages);
    const answers = await Promise.all(
      servers.map(async (server) => {
        const keys = await dnskeyQuery(server, zone.name);
        if (!good(keys) || dnskeysIn(keys, zone.name).length === 0) return { keys };
        return { keys, nsec: await server.query(zone.name, RRType.NSEC, { dnssec: true }) };
      }),
    );
    servers.forEach((server, i) => {
      const { keys, nsec } = answers[i];
      const ns = [server.toString()];
      if (!good(keys)) return;
      if (dnskeysIn(keys, zone.name).length === 0) return void lists.withoutKey.push(...ns);
      lists.withKey.push(...ns);
      if (!nsec) return void lists.noResponse.push(...ns);
      if (!good(nsec)) return void lists.errorResponse.push(...ns);
      const nsec3s = recordsOfType(nsec, RRType.NSEC3, ['authority']).filter((rr): rr is ResourceRecord<Nsec3Data> => recordIs(rr, RRType.NSEC3));
      if (nsec3s.length === 0) return void lists.withoutNsec3.push(...ns);
      lists.withNsec3.push(...ns);
      if (nsec3s.length > 1) lists.multiple.push(...ns);
      const { rdata } = nsec3s[0];
      push(hashAlgorithm, rdata.hashAlgorithm, ns);
      push(flags, rdata.flags, ns);
      push(iterations, rdata.iterations, ns);
      // The reference measures the salt in hex digits.
      push(saltLength, rdata.salt.length * 2, ns);
    });
    const some = (list: string[]): boolean => list.length > 0;
    if (!some(lists.withKey) && some(lists.withoutKey)) messages.push({ tag: 'DS03_NO_DNSSEC_SUPPORT', args: { ns_list: nsList(lists.withoutKey) } });
    if (some(lists.withKey) && some(lists.withoutKey)) messages.push({ tag: 'DS03_SERVER_NO_DNSSEC_SUPPORT', args: { ns_list: nsList(lists.withoutKey) } });
    if (!some(lists.withNsec3) && some(lists.withoutNsec3)) messages.push({ tag: 'DS03_NO_NSEC3', args: { ns_list: nsList(lists.withoutNsec3) } });
    if (some(lists.withNsec3) && some(lists.withoutNsec3)) messages.push({ tag: 'DS03_SERVER_NO_NSEC3', args: { ns_list: nsList(lists.withoutNsec3) } });
    if (some(lists.multiple)) messages.push({ tag: 'DS03_ERR_MULT_NSEC3', args: { ns_list: nsList(lists.multiple) } });
    if (hashAlgorithm.size > 1) messages.push({ tag: 'DS03_INCONSISTENT_HASH_ALGO', args: {} });
    for (const [algo, ns] of numbered(hashAlgorithm)) {
      messages.push(algo === 1 ? { tag: 'DS03_LEGAL_HASH_ALGO', args: { ns_list: nsList(ns) } } : { tag: 'DS03_ILLEGAL_HASH_ALGO', args: { ns_list: nsList(ns), algo_num: algo } });
    }
    if (flags.size > 1) messages.push({ tag: 'DS03_INCONSISTENT_NSEC3_FLAGS', args: {} });
    const tld = zone.name.labelCount <= 1;
    for (const [value, ns] of numbered(flags)) {
      // Bit positions count from the most significant bit; only bit 7 (Opt-Out) is assigned.
      for (let bit = 0; bit <= 6; bit++) if (value & (1 << (7 - bit))) messages.push({ tag: 'DS03_UNASSIGNED_FLAG_USED', args: { ns_list: nsList(ns), int: bit } });
      const optOut = value & 1 ? (tld ? 'DS03_NSEC3_OPT_OUT_ENABLED_TLD' : 'DS03_NSEC3_OPT_OUT_ENABLED_NON_TLD') : 'DS03_NSEC3_OPT_OUT_DISABLED';
      messages.push({ tag: optOut, args: { ns_list: nsList(ns) } });
    }
    if (iterations.size > 1) messages.push({ tag: 'DS03_INCONSISTENT_ITERATION', args: {} });
    for (const [count, ns] of numbered(iterations)) {
      messages.push(count === 0 ? { tag: 'DS03_LEGAL_ITERATION_VALUE', args: { ns_list: nsList(ns) } } : { tag: 'DS03_ILLEGAL_ITERATION_VALUE', args: { ns_list: nsList(ns), int: count } });
    }
    if (saltLength.size > 1) messages.push({ tag: 'DS03_INCONSISTENT_SALT_LENGTH', args: {} });
    for (const [length, ns] of numbered(saltLength)) {
      messages.push(length === 0 ? { tag: 'DS03_LEGAL_EMPTY_SALT', args: { ns_list: nsList(ns) } } : { tag: 'DS03_ILLEGAL_SALT_LENGTH', args: { ns_list: nsList(ns), int: length } });
    }
    if (some(lists.noResponse)) messages.push({ tag: 'DS03_NO_RESPONSE_NSEC_QUERY', args: { ns_list: nsList(lists.noResponse) } });
    if (some(lists.errorResponse)) messages.push({ tag: 'DS03_ERROR_RESPONSE_NSEC_QUERY', args: { ns_list: nsList(lists.errorResponse) } });
    return messages;
  },
};

/** The reference's gmtime text: "Wed Dec  3 14:57:48 2026". */
function gmtimeText(seconds: number): string {
  const d = new Date(seconds * 1000);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${day} ${month} ${String(d.getUTCDate()).padStart(2, ' ')} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

/** DNSSEC04: how long the RRSIGs over DNSKEY and SOA have left, and how long they were made to last. */
export const dnssec04: TestCase = {
  id: 'DNSSEC04',
  spec: `${specs}/dnssec04.md`,
  tags: ['RRSIG_EXPIRATION', 'RRSIG_EXPIRED', 'REMAINING_SHORT', 'REMAINING_LONG', 'DURATION_LONG', 'DURATION_OK'],
  ...gated,
  async run({ zone, profile }) {
    const keyResponse = await zone.queryOne(zone.name, RRType.DNSKEY, { dnssec: true });
    if (!keyResponse) return [];
    const soaResponse = await zone.queryOne(zone.name, RRType.SOA, { dnssec: true });
    if (!soaResponse) return [];
    const limits = profile.test_cases_vars.dnssec04 ?? {};
    const short = limits.REMAINING_SHORT ?? 43200;
    const long = limits.REMAINING_LONG ?? 15552000;
    const durationLong = limits.DURATION_LONG ?? 15552000;
    const time = now();
    const messages: Message[] = [];
    for (const sig of [...rrsigsIn(keyResponse), ...rrsigsIn(soaResponse)]) {
      const { expiration, inception, keyTag: keytag } = sig.rdata;
      const types = typeToString(sig.rdata.typeCovered);
      messages.push({ tag: 'RRSIG_EXPIRATION', args: { date: gmtimeText(expiration), keytag, types } });
      const remaining = expiration - time;
      const found: Message[] = [];
      if (remaining < 0) found.push({ tag: 'RRSIG_EXPIRED', args: { expiration, keytag, types } });
      else if (remaining < short) found.push({ tag: 'REMAINING_SHORT', args: { duration: remaining, keytag, types } });
      else if (remaining > long) found.push({ tag: 'REMAINING_LONG', args: { duration: remaining, keytag, types } });
      const duration = expiration - inception;
      if (duration > durationLong) found.push({ tag: 'DURATION_LONG', args: { duration, keytag, types } });
      messages.push(...(found.length > 0 ? found : [{ tag: 'DURATION_OK', args: { duration, keytag, types } }]));
    }
    return messages;
  },
};

/** DNSKEY answers per server (Method 4 ∪ 5, every name/address), with NO_RESPONSE / NO_RESPONSE_DNSKEY for the others. */
async function dnskeysPerServer(context: TestContext, messages: Message[]): Promise<Dnskey[][]> {
  const servers = await childServers(context, ['DNSKEY'], messages, false);
  const responses = await Promise.all(servers.map((server) => dnskeyQuery(server, context.zone.name)));
  return servers.flatMap((server, i) => {
    const response = responses[i];
    if (!response) {
      messages.push({ tag: 'NO_RESPONSE', args: { ns: server.toString() } });
      return [];
    }
    const keys = dnskeysIn(response);
    if (keys.length === 0) messages.push({ tag: 'NO_RESPONSE_DNSKEY', args: { ns: server.toString() } });
    return keys.length > 0 ? [keys] : [];
  });
}

/** DNSSEC05: the algorithms of the DNSKEYs, per key and server. */
export const dnssec05: TestCase = {
  id: 'DNSSEC05',
  spec: `${specs}/dnssec05.md`,
  tags: [...algorithmStatuses.map((status) => `DS05_ALGO_${status}`), 'DS05_NO_RESPONSE', 'DS05_SERVER_NO_DNSSEC', 'DS05_ZONE_NO_DNSSEC', ...familyTags],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const [ignored, without, withKeys] = [[], [], []] as string[][];
    // algorithm -> key tag -> servers
    const seen = new Map<number, Map<number, string[]>>();
    const groups = (await childGroups(context)).filter((group) => !familyOff(context, group[0], ['DNSKEY'], messages));
    const responses = await Promise.all(groups.map((group) => dnskeyQuery(group[0], zone.name)));
    groups.forEach((group, i) => {
      const response = responses[i];
      if (!good(response)) return void ignored.push(...names(group));
      const keys = dnskeysIn(response, zone.name);
      if (keys.length === 0) return void without.push(...names(group));
      withKeys.push(...names(group));
      for (const key of keys) {
        if (!seen.has(key.rdata.algorithm)) seen.set(key.rdata.algorithm, new Map());
        push(seen.get(key.rdata.algorithm)!, tagOf(key), names(group));
      }
    });
    for (const status of algorithmStatuses) {
      for (const [algo, keys] of numbered(seen)) {
        const { status: own, description, mnemonic: mnemo } = algorithm(algo);
        if (own !== status) continue;
        for (const [keytag, servers] of numbered(keys)) {
          messages.push({ tag: `DS05_ALGO_${status}`, args: { ns_list: nsList(servers), keytag, algo_num: algo, algo_descr: description, algo_mnemo: mnemo } });
        }
      }
    }
    if (without.length === 0 && withKeys.length === 0) messages.push({ tag: 'DS05_NO_RESPONSE', args: { ns_list: nsList(ignored) } });
    if (without.length > 0) messages.push({ tag: withKeys.length === 0 ? 'DS05_ZONE_NO_DNSSEC' : 'DS05_SERVER_NO_DNSSEC', args: { ns_list: nsList(without) } });
    return messages;
  },
};

/** DNSSEC06: the zone's servers send the RRSIGs with the DNSKEY RRset. */
export const dnssec06: TestCase = {
  id: 'DNSSEC06',
  spec: `${specs}/dnssec06.md`,
  tags: ['EXTRA_PROCESSING_OK', 'EXTRA_PROCESSING_BROKEN'],
  ...gated,
  async run({ zone }) {
    const messages: Message[] = [];
    for (const { server, response } of await zone.queryAll(zone.name, RRType.DNSKEY, { dnssec: true })) {
      if (!response) continue;
      const keys = dnskeysIn(response).length;
      const sigs = rrsigsIn(response).length;
      const args = { server: server.address, keys, sigs };
      if (keys > 0 && sigs > 0) messages.push({ tag: 'EXTRA_PROCESSING_OK', args });
      else if (response.rcode === 0) messages.push({ tag: 'EXTRA_PROCESSING_BROKEN', args });
    }
    return messages;
  },
};

const coversType = (rrsigs: readonly Rrsig[], type: number): boolean => rrsigs.some((sig) => sig.rdata.typeCovered === type);

/** DNSSEC07: is the zone signed (a signed DNSKEY RRset on its servers), and is there a signed DS at the parent? */
export const dnssec07: TestCase = {
  id: 'DNSSEC07',
  spec: `${specs}/dnssec07.md`,
  tags: [
    'DS07_DS_FOR_SIGNED_ZONE', 'DS07_DS_ON_PARENT_SERVER', 'DS07_INCONSISTENT_DS', 'DS07_INCONSISTENT_SIGNED', 'DS07_NON_AUTH_RESPONSE_DNSKEY', 'DS07_NOT_SIGNED',
    'DS07_NOT_SIGNED_ON_SERVER', 'DS07_NO_DS_FOR_SIGNED_ZONE', 'DS07_NO_DS_ON_PARENT_SERVER', 'DS07_NO_RESPONSE_DNSKEY', 'DS07_SIGNED', 'DS07_SIGNED_ON_SERVER',
    'DS07_UNEXP_RCODE_RESP_DNSKEY', ...familyTags,
  ],
  // The module's gate: every other DNSSEC test case waits for it, and it waits for the zone's servers'
  // own addresses. Its lookups are made as soon as the delegation is known.
  lookAhead: (context) => dnssec07.run(context),
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const [ignored, noResponse, noAuth, signed, unsigned] = [[], [], [], [], []] as string[][];
    const rcodes = new Map<string, string[]>();
    const children = await childGroups(context);
    const asked = children.filter((group) => !familyOff(context, group[0], ['SOA', 'DNSKEY', 'DS'], messages));
    const answers = await Promise.all(
      asked.map(async (group) => {
        const soa = await group[0].query(zone.name, RRType.SOA);
        if (!good(soa) || recordsOfType(soa, RRType.SOA, ['answer']).length === 0) return undefined;
        return { dnskey: await dnskeyQuery(group[0], zone.name) };
      }),
    );
    asked.forEach((group, i) => {
      const answer = answers[i];
      const ns = names(group);
      if (!answer) return void ignored.push(...ns);
      const { dnskey } = answer;
      if (!dnskey) return void noResponse.push(...ns);
      if (!dnskey.aa) return void noAuth.push(...ns);
      if (dnskey.rcode !== 0) return void push(rcodes, rcodeName(dnskey.rcode), ns);
      (coversType(rrsigsIn(dnskey), RRType.DNSKEY) ? signed : unsigned).push(...ns);
    });
    const [noDs, withDs] = [[], []] as string[][];
    if (signed.length > 0) {
      if (givenDs(context)) withDs.push('-');
      else {
        const groups = (await parentGroups(context)).filter((group) => !familyOff(context, group[0], ['DS'], messages));
        const responses = await Promise.all(groups.map((group) => group[0].query(zone.name, RRType.DS, { dnssec: true })));
        groups.forEach((group, i) => {
          const response = responses[i];
          if (!good(response) || !hasDo(response)) return;
          (coversType(rrsigsIn(response, 'answer', zone.name), RRType.DS) ? withDs : noDs).push(...names(group));
        });
      }
    }
    const all = new Set(children.flat().map(String));
    const unusable = new Set([...ignored, ...noResponse, ...noAuth, ...[...rcodes.values()].flat()]);
    if (unusable.size === all.size && [...all].every((ns) => unusable.has(ns))) messages.push({ tag: 'DS07_NOT_SIGNED', args: {} });
    if (noResponse.length > 0) messages.push({ tag: 'DS07_NO_RESPONSE_DNSKEY', args: { ns_list: nsList(noResponse) } });
    if (noAuth.length > 0) messages.push({ tag: 'DS07_NON_AUTH_RESPONSE_DNSKEY', args: { ns_list: nsList(noAuth) } });
    for (const [rcode, ns] of [...rcodes].sort(([a], [b]) => byText(a, b))) messages.push({ tag: 'DS07_UNEXP_RCODE_RESP_DNSKEY', args: { ns_list: nsList(ns), rcode } });
    if (signed.length > 0) messages.push({ tag: 'DS07_SIGNED_ON_SERVER', args: { ns_list: nsList(signed) } });
    if (unsigned.length > 0) messages.push({ tag: 'DS07_NOT_SIGNED_ON_SERVER', args: { ns_list: nsList(unsigned) } });
    if (signed.length > 0) messages.push(unsigned.length > 0 ? { tag: 'DS07_INCONSISTENT_SIGNED', args: {} } : { tag: 'DS07_SIGNED', args: {} });
    else if (unsigned.length > 0) messages.push({ tag: 'DS07_NOT_SIGNED', args: {} });
    if (noDs.length > 0) messages.push({ tag: 'DS07_NO_DS_ON_PARENT_SERVER', args: { ns_list: nsList(noDs) } });
    if (withDs.length > 0) messages.push({ tag: 'DS07_DS_ON_PARENT_SERVER', args: { ns_list: nsList(withDs) } });
    if (noDs.length > 0 && withDs.length > 0) messages.push({ tag: 'DS07_INCONSISTENT_DS', args: {} });
    if (unsigned.length === 0 && signed.length > 0) {
      if (noDs.length > 0 && withDs.length === 0) messages.push({ tag: 'DS07_NO_DS_FOR_SIGNED_ZONE', args: {} });
      if (noDs.length === 0 && withDs.length > 0) messages.push({ tag: 'DS07_DS_FOR_SIGNED_ZONE', args: {} });
    }
    return messages;
  },
};

/** DNSSEC08 and DNSSEC09 share their shape: RRSIGs over one RRset, checked against the DNSKEY RRset, per server. */
function rrsigCheck(id: 'DNSSEC08' | 'DNSSEC09', prefix: 'DS08' | 'DS09', type: 'DNSKEY' | 'SOA'): TestCase {
  const rrsetWord = type === 'DNSKEY' ? 'DNSKEY' : 'SOA';
  return {
    id,
    spec: `${specs}/${id.toLowerCase()}.md`,
    tags: [
      `${prefix}_ALGO_NOT_SUPPORTED_BY_ZM`, `${prefix}_MISSING_RRSIG_IN_RESPONSE`, `${prefix}_NO_MATCHING_DNSKEY`, `${prefix}_RRSIG_NOT_VALID_BY_DNSKEY`,
      `${prefix}_${rrsetWord}_RRSIG_EXPIRED`, `${prefix}_${rrsetWord}_RRSIG_NOT_YET_VALID`, ...familyTags,
    ],
    ...gated,
    async run(context) {
      const { zone } = context;
      const messages: Message[] = [];
      const unsigned: string[] = [];
      const faults = { 'not-yet-valid': new Grouped(), expired: new Grouped(), 'no-key': new Grouped(), invalid: new Grouped() };
      const unsupported = new Unsupported();
      const servers = await childServers(context, ['DNSKEY'], messages);
      await Promise.all(
        servers.map(async (server) => {
          const keys = await zoneKeysFrom(server, zone.name);
          if (!keys) return;
          // DNSSEC08 checks the whole DNSKEY answer against itself; DNSSEC09 the SOA against the zone's keys.
          let response = (await dnskeyQuery(server, zone.name))!;
          let rrset: RecordInput[] = dnskeysIn(response);
          if (type === 'SOA') {
            const soa = await server.query(zone.name, RRType.SOA, { dnssec: true });
            if (!good(soa)) return;
            rrset = recordsFor(soa, RRType.SOA, zone.name, ['answer']);
            if (rrset.length === 0) return;
            response = soa;
          }
          const rrsigs = rrsigsIn(response);
          if (rrsigs.length === 0) {
            unsigned.push(server.address);
            return;
          }
          const time = now();
          for (const rrsig of rrsigs) {
            const fault = signatureFault(rrset, rrsig, type === 'DNSKEY' ? dnskeysIn(response) : keys, time, true);
            if (fault === 'unsupported') unsupported.add(rrsig, server.address);
            else if (fault) faults[fault].add(rrsig.rdata.keyTag, server.address);
          }
        }),
      );
      messages.push(
        ...listed(`${prefix}_MISSING_RRSIG_IN_RESPONSE`, unsigned),
        ...faults['not-yet-valid'].messages(`${prefix}_${rrsetWord}_RRSIG_NOT_YET_VALID`),
        ...faults.expired.messages(`${prefix}_${rrsetWord}_RRSIG_EXPIRED`),
        ...faults['no-key'].messages(`${prefix}_NO_MATCHING_DNSKEY`),
        ...faults.invalid.messages(`${prefix}_RRSIG_NOT_VALID_BY_DNSKEY`),
        ...unsupported.messages(`${prefix}_ALGO_NOT_SUPPORTED_BY_ZM`),
      );
      return messages;
    },
  };
}

export const dnssec08 = rrsigCheck('DNSSEC08', 'DS08', 'DNSKEY');
export const dnssec09 = rrsigCheck('DNSSEC09', 'DS09', 'SOA');

/** What DNSSEC10 found about the signatures over one kind of denial record (NSEC or NSEC3), per server. */
class DenialSignatures {
  readonly missing: string[] = [];
  readonly verified: string[] = [];
  readonly noKey = new Map<number, string[]>();
  readonly expired = new Map<number, string[]>();
  readonly notYetValid = new Map<number, string[]>();
  readonly invalid = new Map<number, string[]>();

  /** The reference's order of checks: a key with the tag, the time window, then each such key in turn. */
  check(response: DnsMessage, records: readonly ResourceRecord[], type: number, keys: readonly Dnskey[], time: number, ns: string[], unsupported: Map<string, string[]>): void {
    const owner = records[0].name;
    const rrsigs = recordsFor(response, RRType.RRSIG, owner).filter((rr): rr is Rrsig => recordIs(rr, RRType.RRSIG) && rr.rdata.typeCovered === type);
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
    const keyed: [Map<number, string[]>, string][] = [[this.noKey, 'RRSIG_NO_DNSKEY'], [this.expired, 'RRSIG_EXPIRED'], [this.notYetValid, 'RRSIG_NOT_YET_VALID'], [this.invalid, 'RRSIG_VERIFY_ERROR']];
    for (const [map, suffix] of keyed) for (const [keytag, ns] of numbered(map)) messages.push({ tag: `DS10_${word}_${suffix}`, args: { keytag, ns_list: nsList(ns) } });
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

/** DNSSEC10: the zone's NSEC or NSEC3 chain, seen from the apex: NSEC and NSEC3PARAM queries, their NODATA proofs and signatures. */
export const dnssec10: TestCase = {
  id: 'DNSSEC10',
  spec: `${specs}/dnssec10.md`,
  tags: [
    'DS10_ALGO_NOT_SUPPORTED_BY_ZM', 'DS10_ERR_MULT_NSEC', 'DS10_ERR_MULT_NSEC3', 'DS10_EXPECTED_NSEC_NSEC3_MISSING', 'DS10_HAS_NSEC', 'DS10_HAS_NSEC3',
    'DS10_INCONSISTENT_NSEC', 'DS10_INCONSISTENT_NSEC3', 'DS10_INCONSISTENT_NSEC_NSEC3', 'DS10_MIXED_NSEC_NSEC3', 'DS10_NONSTANDARD_NSEC_RESPONSE',
    'DS10_NSEC3PARAM_GIVES_ERR_ANSWER', 'DS10_NSEC3PARAM_MISMATCHES_APEX', 'DS10_NSEC3PARAM_QUERY_RESPONSE_ERR', 'DS10_NSEC3_ERR_TYPE_LIST',
    'DS10_NSEC3_MISMATCHES_APEX', 'DS10_NSEC3_MISSING_SIGNATURE', 'DS10_NSEC3_NODATA_MISSING_SOA', 'DS10_NSEC3_NODATA_WRONG_SOA',
    'DS10_NSEC3_NO_VERIFIED_SIGNATURE', 'DS10_NSEC3_RRSIG_EXPIRED', 'DS10_NSEC3_RRSIG_NOT_YET_VALID', 'DS10_NSEC3_RRSIG_NO_DNSKEY',
    'DS10_NSEC3_RRSIG_VERIFY_ERROR', 'DS10_NSEC_ERR_TYPE_LIST', 'DS10_NSEC_GIVES_ERR_ANSWER', 'DS10_NSEC_MISMATCHES_APEX', 'DS10_NSEC_MISSING_SIGNATURE',
    'DS10_NSEC_NODATA_MISSING_SOA', 'DS10_NSEC_NODATA_WRONG_SOA', 'DS10_NSEC_NO_VERIFIED_SIGNATURE', 'DS10_NSEC_QUERY_RESPONSE_ERR',
    'DS10_NSEC_RRSIG_EXPIRED', 'DS10_NSEC_RRSIG_NOT_YET_VALID', 'DS10_NSEC_RRSIG_NO_DNSKEY', 'DS10_NSEC_RRSIG_VERIFY_ERROR', 'DS10_SERVER_NO_DNSSEC',
    'DS10_ZONE_NO_DNSSEC', ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const l = Object.fromEntries(
      [
        'ignored', 'withKey', 'withoutKey', 'multNsec', 'multNsec3', 'nsecInResponse', 'nonstandard', 'nsec3paramInAnswer', 'nsecTypes', 'nsec3Types', 'nsecApex',
        'nsec3Apex', 'nsec3paramApex', 'nsecMissingSoa', 'nsec3MissingSoa', 'nsecWrongSoa', 'nsec3WrongSoa', 'nsecErrAnswer', 'nsec3paramErrAnswer', 'nsecNsec3Nodata',
        'nsec3paramNsecNodata', 'nsecError', 'nsec3paramError',
      ].map((key) => [key, [] as string[]]),
    );
    const nsecSigs = new DenialSignatures();
    const nsec3Sigs = new DenialSignatures();
    const unsupported = new Map<string, string[]>();
    const time = now();
    const groups = await childGroups(context);
    const asked = groups.filter((group) => {
      if (!familyOff(context, group[0], ['DNSKEY', 'NSEC', 'NSEC3PARAM'], messages)) return true;
      l.ignored.push(...names(group));
      return false;
    });
    const answers = await Promise.all(
      asked.map(async (group) => {
        const server = group[0];
        const dnskey = await dnskeyQuery(server, zone.name);
        if (!good(dnskey) || dnskeysIn(dnskey, zone.name).length === 0) return { dnskey };
        const [nsec, nsec3param] = await Promise.all([RRType.NSEC, RRType.NSEC3PARAM].map((type) => server.query(zone.name, type, { dnssec: true })));
        return { dnskey, nsec, nsec3param };
      }),
    );

    /** An NSEC NODATA proof (from the NSEC or the NSEC3PARAM query): one record, at the apex, with the apex's types, signed. */
    const nsecNodata = (response: DnsMessage, keys: Dnskey[], ns: string[]): void => {
      const soa = recordsOfType(response, RRType.SOA, ['authority']);
      if (soa.length === 0) l.nsecMissingSoa.push(...ns);
      else if (!soa[0].name.equals(zone.name)) l.nsecWrongSoa.push(...ns);
      const records = recordsOfType(response, RRType.NSEC, ['authority']).filter((rr): rr is ResourceRecord<NsecData> => recordIs(rr, RRType.NSEC));
      if (records.length > 1) return void l.multNsec.push(...ns);
      if (!records[0].name.equals(zone.name)) l.nsecApex.push(...ns);
      else if (wrongTypes(records[0].rdata.types, nsecMandatory, [RRType.NSEC3PARAM, RRType.NSEC3])) l.nsecTypes.push(...ns);
      nsecSigs.check(response, records, RRType.NSEC, keys, time, ns, unsupported);
    };

    asked.forEach((group, i) => {
      const { dnskey, nsec, nsec3param } = answers[i];
      const ns = names(group);
      if (!good(dnskey)) return void l.ignored.push(...ns);
      const keys = dnskeysIn(dnskey, zone.name);
      if (keys.length === 0) return void l.withoutKey.push(...ns);
      l.withKey.push(...ns);
      if (!good(nsec)) l.nsecError.push(...ns);
      else if (nsec.answer.length > 0) {
        const records = recordsOfType(nsec, RRType.NSEC, ['answer']);
        if (records.length === 0) l.nsecErrAnswer.push(...ns);
        else {
          l.nsecInResponse.push(...ns);
          if (records.length > 1) l.multNsec.push(...ns);
          else if (!records[0].name.equals(zone.name)) l.nsecApex.push(...ns);
        }
      } else if (recordsOfType(nsec, RRType.NSEC, ['authority']).length > 0) {
        l.nsecInResponse.push(...ns);
        l.nonstandard.push(...ns);
        nsecNodata(nsec, keys, ns);
      } else if (recordsOfType(nsec, RRType.NSEC3, ['authority']).length > 0) {
        l.nsecNsec3Nodata.push(...ns);
        const soa = recordsOfType(nsec, RRType.SOA, ['authority']);
        if (soa.length === 0) l.nsec3MissingSoa.push(...ns);
        else if (!soa[0].name.equals(zone.name)) l.nsec3WrongSoa.push(...ns);
        const records = recordsOfType(nsec, RRType.NSEC3, ['authority']).filter((rr): rr is ResourceRecord<Nsec3Data> => recordIs(rr, RRType.NSEC3));
        if (records.length > 1) l.multNsec3.push(...ns);
        else {
          const [record] = records;
          const apexHash = base32hexEncode(nsec3Hash(zone.name, record.rdata.salt, record.rdata.iterations)).toLowerCase();
          const firstLabel = Buffer.from(record.name.labels[0] ?? []).toString('latin1').toLowerCase();
          if (apexHash !== firstLabel) l.nsec3Apex.push(...ns);
          else if (wrongTypes(record.rdata.types, nsec3Mandatory, [RRType.NSEC, RRType.NSEC3])) l.nsec3Types.push(...ns);
          nsec3Sigs.check(nsec, records, RRType.NSEC3, keys, time, ns, unsupported);
        }
      }
      if (!good(nsec3param)) l.nsec3paramError.push(...ns);
      else if (nsec3param.answer.length > 0) {
        const records = recordsOfType(nsec3param, RRType.NSEC3PARAM, ['answer']);
        if (records.length === 0) l.nsec3paramErrAnswer.push(...ns);
        else {
          l.nsec3paramInAnswer.push(...ns);
          if (!records[0].name.equals(zone.name)) l.nsec3paramApex.push(...ns);
        }
      } else if (recordsOfType(nsec3param, RRType.NSEC, ['authority']).length > 0) {
        l.nsec3paramNsecNodata.push(...ns);
        nsecNodata(nsec3param, keys, ns);
      }
    });

    const list = (tag: string, items: readonly string[]): Message[] => (items.length > 0 ? [{ tag, args: { ns_list: nsList(items) } }] : []);
    const withNsec = [...l.nsecInResponse, ...l.nsec3paramNsecNodata];
    const withNsec3 = [...l.nsec3paramInAnswer, ...l.nsecNsec3Nodata];
    messages.push(...list('DS10_ERR_MULT_NSEC', l.multNsec), ...list('DS10_ERR_MULT_NSEC3', l.multNsec3), ...list('DS10_NONSTANDARD_NSEC_RESPONSE', l.nonstandard));
    // The reference's own set arithmetic for servers that answer one way to one query and another way to the other.
    const nsecDiff = symmetricDifference(l.nsecInResponse, l.nsec3paramNsecNodata);
    const nsecFinal = symmetricDifference(nsecDiff, withNsec3);
    if (nsecDiff.size > 0 && nsecFinal.size > 0) messages.push({ tag: 'DS10_INCONSISTENT_NSEC', args: { ns_list: textList(nsecFinal) } });
    const nsec3Diff = symmetricDifference(l.nsec3paramInAnswer, l.nsecNsec3Nodata);
    const nsec3Final = symmetricDifference(nsec3Diff, withNsec);
    if (nsec3Diff.size > 0 && nsec3Final.size > 0) messages.push({ tag: 'DS10_INCONSISTENT_NSEC3', args: { ns_list: textList(nsec3Final) } });
    const nsecSet = new Set(withNsec);
    const nsec3Set = new Set(withNsec3);
    const mixed = withNsec3.filter((ns) => nsecSet.has(ns));
    if (mixed.length > 0) messages.push({ tag: 'DS10_MIXED_NSEC_NSEC3', args: { ns_list: textList(mixed) } });
    if (withNsec.length > 0 && withNsec3.length === 0) messages.push(...list('DS10_HAS_NSEC', withNsec));
    if (withNsec3.length > 0 && withNsec.length === 0) messages.push(...list('DS10_HAS_NSEC3', withNsec3));
    if (withNsec3.some((ns) => !nsecSet.has(ns)) && withNsec.some((ns) => !nsec3Set.has(ns))) messages.push(...list('DS10_INCONSISTENT_NSEC_NSEC3', [...withNsec3, ...withNsec]));
    messages.push(
      ...list('DS10_NSEC_ERR_TYPE_LIST', l.nsecTypes),
      ...list('DS10_NSEC_MISMATCHES_APEX', l.nsecApex),
      ...(l.nsecWrongSoa.length > 0 ? [{ tag: 'DS10_NSEC_NODATA_WRONG_SOA', args: { domain: zone.nameText, ns_list: nsList(l.nsecWrongSoa) } }] : []),
      ...list('DS10_NSEC_NODATA_MISSING_SOA', l.nsecMissingSoa),
      ...list('DS10_NSEC_GIVES_ERR_ANSWER', l.nsecErrAnswer),
      ...list('DS10_NSEC_QUERY_RESPONSE_ERR', l.nsecError),
      ...list('DS10_NSEC3_ERR_TYPE_LIST', l.nsec3Types),
      ...list('DS10_NSEC3_MISMATCHES_APEX', l.nsec3Apex),
      ...(l.nsec3WrongSoa.length > 0 ? [{ tag: 'DS10_NSEC3_NODATA_WRONG_SOA', args: { domain: zone.nameText, ns_list: nsList(l.nsec3WrongSoa) } }] : []),
      ...list('DS10_NSEC3_NODATA_MISSING_SOA', l.nsec3MissingSoa),
      ...list('DS10_NSEC3PARAM_GIVES_ERR_ANSWER', l.nsec3paramErrAnswer),
      ...list('DS10_NSEC3PARAM_MISMATCHES_APEX', l.nsec3paramApex),
      ...list('DS10_NSEC3PARAM_QUERY_RESPONSE_ERR', l.nsec3paramError),
      ...list('DS10_NSEC_MISSING_SIGNATURE', nsecSigs.missing),
      ...list('DS10_NSEC3_MISSING_SIGNATURE', nsec3Sigs.missing),
      ...nsecSigs.messages('NSEC'),
      ...nsec3Sigs.messages('NSEC3'),
    );
    for (const [key, ns] of [...unsupported].sort(([a], [b]) => byText(a, b))) {
      const [keytag, algo] = key.split('/').map(Number);
      messages.push({ tag: 'DS10_ALGO_NOT_SUPPORTED_BY_ZM', args: { keytag, algo_num: algo, algo_mnemo: mnemonic(algo), ns_ip_list: nsList(ns) } });
    }
    if (l.withoutKey.length > 0) messages.push(...list(l.withKey.length > 0 ? 'DS10_SERVER_NO_DNSSEC' : 'DS10_ZONE_NO_DNSSEC', l.withoutKey));
    const accounted = new Set([...l.ignored, ...l.withoutKey, ...withNsec, ...withNsec3]);
    const missing = groups.flat().map(String).filter((ns) => !accounted.has(ns));
    if (missing.length > 0) messages.push({ tag: 'DS10_EXPECTED_NSEC_NSEC3_MISSING', args: { ns_list: textList(missing) } });
    return messages;
  },
};

/** DNSSEC11: a DS at the parent means the zone must be signed. */
export const dnssec11: TestCase = {
  id: 'DNSSEC11',
  spec: `${specs}/dnssec11.md`,
  tags: [
    'DS11_INCONSISTENT_DS', 'DS11_INCONSISTENT_SIGNED_ZONE', 'DS11_UNDETERMINED_DS', 'DS11_UNDETERMINED_SIGNED_ZONE', 'DS11_PARENT_WITHOUT_DS',
    'DS11_PARENT_WITH_DS', 'DS11_NS_WITH_SIGNED_ZONE', 'DS11_NS_WITH_UNSIGNED_ZONE', 'DS11_DS_BUT_UNSIGNED_ZONE', ...familyTags,
  ],
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    if (zone.undelegated) {
      if ((await zone.dsFromParent()).length === 0) return messages;
    } else {
      const [undetermined, without, withDs] = [[], [], []] as string[][];
      const servers = await parentServers(context, messages);
      const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.DS, { dnssec: true })));
      servers.forEach((server, i) => {
        const response = responses[i];
        if (!good(response)) undetermined.push(server.address);
        else (dsIn(response, RRType.DS, zone.name).length > 0 ? withDs : without).push(server.address);
      });
      if (undetermined.length > 0 && without.length === 0 && withDs.length === 0) return [...messages, { tag: 'DS11_UNDETERMINED_DS', args: {} }];
      if (without.length > 0 && withDs.length === 0) return messages;
      if (without.length > 0) messages.push({ tag: 'DS11_INCONSISTENT_DS', args: {} }, ...listed('DS11_PARENT_WITHOUT_DS', without), ...listed('DS11_PARENT_WITH_DS', withDs));
    }
    const [undetermined, unsigned, signed] = [[], [], []] as string[][];
    // Each server's two questions in turn, the servers side by side (the verdicts kept in server order).
    const servers = await childServers(context, ['SOA', 'DNSKEY'], messages);
    const verdicts = await Promise.all(
      servers.map(async (server) => {
        const soa = await server.query(zone.name, RRType.SOA);
        if (!good(soa) || recordsFor(soa, RRType.SOA, zone.name, ['answer']).length === 0) return undefined;
        const keys = await server.query(zone.name, RRType.DNSKEY);
        return !good(keys) ? undetermined : dnskeysIn(keys, zone.name).length > 0 ? signed : unsigned;
      }),
    );
    servers.forEach((server, i) => verdicts[i]?.push(server.address));
    if (undetermined.length > 0 && unsigned.length === 0 && signed.length === 0) messages.push({ tag: 'DS11_UNDETERMINED_SIGNED_ZONE', args: {} });
    else if (unsigned.length > 0 && signed.length === 0) messages.push({ tag: 'DS11_DS_BUT_UNSIGNED_ZONE', args: {} });
    else if (unsigned.length > 0) messages.push({ tag: 'DS11_INCONSISTENT_SIGNED_ZONE', args: {} }, ...listed('DS11_NS_WITH_UNSIGNED_ZONE', unsigned), ...listed('DS11_NS_WITH_SIGNED_ZONE', signed));
    return messages;
  },
};

/** DNSSEC13: every DNSKEY algorithm signs the DNSKEY, SOA and NS RRsets. */
export const dnssec13: TestCase = {
  id: 'DNSSEC13',
  spec: `${specs}/dnssec13.md`,
  tags: ['DS13_ALGO_NOT_SIGNED_DNSKEY', 'DS13_ALGO_NOT_SIGNED_NS', 'DS13_ALGO_NOT_SIGNED_SOA', ...familyTags],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const types = ['DNSKEY', 'SOA', 'NS'] as const;
    const missing = Object.fromEntries(types.map((t) => [t, new Grouped()])) as Record<(typeof types)[number], Grouped>;
    // Every question at once (none is a plain SOA query, so none can make a server silent for another;
    // each is asked whatever the one before got), judged in turn, what is missing kept in server order.
    const servers = await childServers(context, types, messages);
    const perServer = await Promise.all(
      servers.map(async (server) => {
        const unsigned: [(typeof types)[number], number][] = [];
        let algorithms: number[] = [];
        const responses = await Promise.all(types.map((type) => server.query(zone.name, RRType[type], { dnssec: true })));
        for (const [i, type] of types.entries()) {
          const rrtype = RRType[type];
          const response = responses[i];
          if (!good(response) || recordsOfType(response, rrtype, ['answer']).length === 0) continue;
          const sigs = rrsigsIn(response);
          if (sigs.length === 0) continue;
          if (type === 'DNSKEY') algorithms = [...new Set(dnskeysIn(response).map((key) => key.rdata.algorithm))];
          for (const algo of algorithms) if (!sigs.some((sig) => sig.rdata.algorithm === algo)) unsigned.push([type, algo]);
        }
        return unsigned;
      }),
    );
    servers.forEach((server, i) => {
      for (const [type, algo] of perServer[i]) missing[type].add(algo, server.address);
    });
    for (const type of types) messages.push(...missing[type].messages(`DS13_ALGO_NOT_SIGNED_${type}`, (algo) => ({ algo_num: Number(algo), algo_mnemo: mnemonic(Number(algo)) })));
    return messages;
  },
};

/** DNSSEC14: RSA key sizes. (4.6 never emits KEY_SIZE_OK: its condition counts TEST_CASE_START too.) */
export const dnssec14: TestCase = {
  id: 'DNSSEC14',
  spec: `${specs}/dnssec14.md`,
  tags: ['NO_RESPONSE', 'NO_RESPONSE_DNSKEY', 'DNSKEY_SMALLER_THAN_REC', 'DNSKEY_TOO_SMALL_FOR_ALGO', 'DNSKEY_TOO_LARGE_FOR_ALGO', ...familyTags],
  ...gated,
  async run(context) {
    const messages: Message[] = [];
    const seen = new Set<string>();
    for (const key of (await dnskeysPerServer(context, messages)).flat()) {
      const algo = key.rdata.algorithm;
      const sizes = rsaSizes[algo];
      const keysize = rsaKeySize(key.rdata) ?? 0;
      const keytag = tagOf(key);
      if (!sizes || seen.has(`${keytag}:${keysize}:${algo}`)) continue;
      seen.add(`${keytag}:${keysize}:${algo}`);
      const args = { algo_num: algo, algo_descr: algorithm(algo).description, keytag, keysize, keysizemin: sizes.min, keysizemax: sizes.max, keysizerec: sizes.rec };
      if (keysize < sizes.min) messages.push({ tag: 'DNSKEY_TOO_SMALL_FOR_ALGO', args });
      if (keysize < sizes.rec) messages.push({ tag: 'DNSKEY_SMALLER_THAN_REC', args });
      if (keysize > sizes.max) messages.push({ tag: 'DNSKEY_TOO_LARGE_FOR_ALGO', args });
    }
    return messages;
  },
};

interface ChildKeySets {
  cds?: { records: ResourceRecord<DsData>[]; rrsigs: Rrsig[] };
  cdnskey?: { records: Dnskey[]; rrsigs: Rrsig[] };
  dnskey?: { records: Dnskey[]; rrsigs: Rrsig[] };
}

/** CDS, CDNSKEY and DNSKEY (DO set) per server address, each only when its answer was authoritative NOERROR. */
async function childKeySets(context: TestContext, rrtypes: readonly string[], messages: Message[]): Promise<Map<string, ChildKeySets>> {
  const { zone } = context;
  const out = new Map<string, ChildKeySets>();
  const servers = await childServers(context, rrtypes, messages);
  await Promise.all(
    servers.map(async (server) => {
      const sets: ChildKeySets = {};
      const [cds, cdnskey, dnskey] = await Promise.all([RRType.CDS, RRType.CDNSKEY, RRType.DNSKEY].map((type) => server.query(zone.name, type, { dnssec: true })));
      if (good(cds)) sets.cds = { records: dsIn(cds, RRType.CDS), rrsigs: rrsigsIn(cds) };
      if (good(cdnskey)) sets.cdnskey = { records: recordsOfType(cdnskey, RRType.CDNSKEY, ['answer']).filter((rr): rr is Dnskey => recordIs(rr, RRType.CDNSKEY)), rrsigs: rrsigsIn(cdnskey) };
      if (good(dnskey)) sets.dnskey = { records: dnskeysIn(dnskey), rrsigs: rrsigsIn(dnskey) };
      out.set(server.address, sets);
    }),
  );
  return out;
}

const rrsetText = (records: readonly { rdata: DsData | DnskeyData }[]): string =>
  records.map((rr) => ('keyTag' in rr.rdata ? dsKey(rr.rdata) : `${rr.rdata.flags}/${rr.rdata.protocol}/${rr.rdata.algorithm}/${hex(rr.rdata.publicKey)}`)).sort().join('\n');

/** DNSSEC15: CDS and CDNSKEY are there together and agree, on every server. */
export const dnssec15: TestCase = {
  id: 'DNSSEC15',
  spec: `${specs}/dnssec15.md`,
  tags: ['DS15_HAS_CDNSKEY_NO_CDS', 'DS15_HAS_CDS_AND_CDNSKEY', 'DS15_HAS_CDS_NO_CDNSKEY', 'DS15_INCONSISTENT_CDNSKEY', 'DS15_INCONSISTENT_CDS', 'DS15_MISMATCH_CDS_CDNSKEY', 'DS15_NO_CDS_CDNSKEY', ...familyTags],
  ...gated,
  async run(context) {
    const messages: Message[] = [];
    const sets = await childKeySets(context, ['CDS', 'CDNSKEY'], messages);
    // The reference reads CDNSKEY only from a server whose CDS answer was usable.
    const cds = new Map([...sets].flatMap(([ip, s]) => (s.cds ? [[ip, s.cds.records] as const] : [])));
    const cdnskey = new Map([...sets].flatMap(([ip, s]) => (s.cds && s.cdnskey ? [[ip, s.cdnskey.records] as const] : [])));
    if ([...cds.values(), ...cdnskey.values()].every((records) => records.length === 0)) return [...messages, { tag: 'DS15_NO_CDS_CDNSKEY', args: {} }];
    const [cdsOnly, cdnskeyOnly, both, mismatch] = [[], [], [], []] as string[][];
    for (const [ip, cdsRecords] of cds) {
      const keys = cdnskey.get(ip);
      if (!keys) continue;
      if (cdsRecords.length > 0 && keys.length === 0) cdsOnly.push(ip);
      else if (keys.length > 0 && cdsRecords.length === 0) cdnskeyOnly.push(ip);
      else if (cdsRecords.length > 0) {
        both.push(ip);
        const matches = (ds: DsData, key: DnskeyData): boolean => ds.keyTag === keyTag(key) || (ds.algorithm === 0 && key.algorithm === 0);
        if (cdsRecords.some((ds) => !keys.some((key) => matches(ds.rdata, key.rdata))) || keys.some((key) => !cdsRecords.some((ds) => matches(ds.rdata, key.rdata)))) mismatch.push(ip);
      }
    }
    messages.push(...listed('DS15_HAS_CDS_NO_CDNSKEY', cdsOnly), ...listed('DS15_HAS_CDNSKEY_NO_CDS', cdnskeyOnly), ...listed('DS15_HAS_CDS_AND_CDNSKEY', both));
    if (new Set([...cds.values()].map(rrsetText)).size > 1) messages.push({ tag: 'DS15_INCONSISTENT_CDS', args: {} });
    if (new Set([...cdnskey.values()].map(rrsetText)).size > 1) messages.push({ tag: 'DS15_INCONSISTENT_CDNSKEY', args: {} });
    messages.push(...listed('DS15_MISMATCH_CDS_CDNSKEY', mismatch));
    return messages;
  },
};

/** DNSSEC16 and DNSSEC17 share their shape: the CDS or CDNSKEY RRset against the DNSKEY RRset, per server. */
function childKeyCheck(id: 'DNSSEC16' | 'DNSSEC17'): TestCase {
  const cds = id === 'DNSSEC16';
  const p = cds ? 'DS16_CDS' : 'DS17_CDNSKEY';
  const x = cds ? 'DS16' : 'DS17';
  const word = cds ? 'CDS' : 'CDNSKEY';
  const tags = {
    withoutDnskey: `${p}_WITHOUT_DNSKEY`, mixedDelete: `${x}_MIXED_DELETE_${word}`, delete: `${x}_DELETE_${word}`, noMatch: `${p}_MATCHES_NO_DNSKEY`,
    nonZone: cds ? 'DS16_CDS_MATCHES_NON_ZONE_DNSKEY' : 'DS17_CDNSKEY_IS_NON_ZONE', nonSep: cds ? 'DS16_CDS_MATCHES_NON_SEP_DNSKEY' : 'DS17_CDNSKEY_IS_NON_SEP',
    dnskeyNotSigned: `${x}_DNSKEY_NOT_SIGNED_BY_${word}`, notSignedBySelf: `${p}_NOT_SIGNED_BY_${word}`, invalid: `${p}_INVALID_RRSIG`, unsigned: `${p}_UNSIGNED`,
    unknownSigner: `${p}_SIGNED_BY_UNKNOWN_DNSKEY`,
  };
  return {
    id,
    spec: `${specs}/${id.toLowerCase()}.md`,
    tags: [...Object.values(tags), ...familyTags],
    ...gated,
    async run(context) {
      const messages: Message[] = [];
      const g = Object.fromEntries(['noMatch', 'nonZone', 'nonSep', 'dnskeyNotSigned', 'notSignedBySelf', 'invalid', 'unknownSigner'].map((k) => [k, new Grouped()])) as Record<string, Grouped>;
      const s = { withoutDnskey: [] as string[], mixedDelete: [] as string[], delete: [] as string[], unsigned: [] as string[] };
      const time = now();
      for (const [ip, sets] of await childKeySets(context, [word, 'DNSKEY'], messages)) {
        const own = cds ? sets.cds : sets.cdnskey;
        if (!own || own.records.length === 0) continue;
        const algorithms = own.records.map((rr) => rr.rdata.algorithm);
        if (algorithms.includes(0)) {
          (algorithms.some((a) => a !== 0) ? s.mixedDelete : s.delete).push(ip);
          continue;
        }
        const dnskeys = sets.dnskey?.records ?? [];
        if (dnskeys.length === 0) {
          s.withoutDnskey.push(ip);
          continue;
        }
        for (const rr of own.records) {
          const tag = 'keyTag' in rr.rdata ? rr.rdata.keyTag : keyTag(rr.rdata);
          const keysWithTag = dnskeys.filter((key) => tagOf(key) === tag);
          const signedBy = (sigs: readonly Rrsig[]): boolean => sigs.some((sig) => sig.rdata.keyTag === tag);
          if (cds) {
            if (keysWithTag.length === 0) g.noMatch.add(tag, ip);
            else if (keysWithTag.some((key) => !(key.rdata.flags & ZONE_KEY))) g.nonZone.add(tag, ip);
            else {
              if (!signedBy(sets.dnskey!.rrsigs)) g.dnskeyNotSigned.add(tag, ip);
              if (!signedBy(own.rrsigs)) g.notSignedBySelf.add(tag, ip);
              if (keysWithTag.some((key) => !(key.rdata.flags & SEP))) g.nonSep.add(tag, ip);
            }
          } else {
            const flags = (rr.rdata as DnskeyData).flags;
            if (!(flags & ZONE_KEY)) g.nonZone.add(tag, ip);
            else {
              if (!(flags & SEP)) g.nonSep.add(tag, ip);
              if (keysWithTag.length === 0) g.noMatch.add(tag, ip);
              else {
                if (!signedBy(sets.dnskey!.rrsigs)) g.dnskeyNotSigned.add(tag, ip);
                if (!signedBy(own.rrsigs)) g.notSignedBySelf.add(tag, ip);
              }
            }
          }
        }
        if (own.rrsigs.length === 0) s.unsigned.push(ip);
        for (const sig of own.rrsigs) {
          const keys = dnskeys.filter((key) => tagOf(key) === sig.rdata.keyTag);
          if (keys.length === 0) g.unknownSigner.add(sig.rdata.keyTag, ip);
          else if (!verifyWithKeys(own.records, sig, keys, time).ok) g.invalid.add(sig.rdata.keyTag, ip);
        }
      }
      messages.push(
        ...listed(tags.withoutDnskey, s.withoutDnskey),
        ...listed(tags.mixedDelete, s.mixedDelete),
        ...listed(tags.delete, s.delete),
        ...g.noMatch.messages(tags.noMatch),
        ...g.nonZone.messages(tags.nonZone),
        ...g.nonSep.messages(tags.nonSep),
        ...g.dnskeyNotSigned.messages(tags.dnskeyNotSigned),
        ...g.notSignedBySelf.messages(tags.notSignedBySelf),
        ...g.invalid.messages(tags.invalid),
        ...listed(tags.unsigned, s.unsigned),
        ...g.unknownSigner.messages(tags.unknownSigner),
      );
      return messages;
    },
  };
}

export const dnssec16 = childKeyCheck('DNSSEC16');
export const dnssec17 = childKeyCheck('DNSSEC17');

/** DNSSEC18: a key the parent's DS names signs the CDS and CDNSKEY RRsets. */
export const dnssec18: TestCase = {
  id: 'DNSSEC18',
  spec: `${specs}/dnssec18.md`,
  tags: ['DS18_NO_MATCH_CDS_RRSIG_DS', 'DS18_NO_MATCH_CDNSKEY_RRSIG_DS', ...familyTags],
  ...gated,
  async run(context) {
    const messages: Message[] = [];
    const dsRecords = await parentDsRecords(context, messages);
    if (dsRecords.length === 0) return messages;
    const sets = await childKeySets(context, ['CDNSKEY', 'CDS', 'DNSKEY'], messages);
    // As the reference reads them: CDNSKEY only after a usable CDS answer, DNSKEY only after a usable CDNSKEY answer.
    const cds = [...sets].filter(([, s]) => s.cds && s.cds.records.length > 0);
    const cdnskey = [...sets].filter(([, s]) => s.cds && s.cdnskey && s.cdnskey.records.length > 0);
    const dnskeyOf = (s: ChildKeySets): Dnskey[] => (s.cds && s.cdnskey && s.dnskey ? s.dnskey.records : []);
    if ((cds.length === 0 && cdnskey.length === 0) || ![...sets.values()].some((s) => dnskeyOf(s).length > 0)) return messages;
    const unmatched = (rrsigs: readonly Rrsig[], keys: readonly Dnskey[]): boolean =>
      !dsRecords.some((ds) => keys.some((key) => tagOf(key) === ds.keyTag) && rrsigs.some((sig) => sig.rdata.keyTag === ds.keyTag));
    messages.push(
      ...listed('DS18_NO_MATCH_CDS_RRSIG_DS', cds.filter(([, s]) => unmatched(s.cds!.rrsigs, dnskeyOf(s))).map(([ip]) => ip)),
      ...listed('DS18_NO_MATCH_CDNSKEY_RRSIG_DS', cdnskey.filter(([, s]) => unmatched(s.cdnskey!.rrsigs, dnskeyOf(s))).map(([ip]) => ip)),
    );
    return messages;
  },
};

export const dnssec: TestModule = {
  name: 'DNSSEC',
  // In the reference's order: DNSSEC07 and DNSSEC11 first.
  testCases: [dnssec07, dnssec11, dnssec01, dnssec02, dnssec03, dnssec04, dnssec05, dnssec06, dnssec08, dnssec09, dnssec10, dnssec13, dnssec14, dnssec15, dnssec16, dnssec17, dnssec18],
};
