// DNSSEC: is the chain of trust from the parent intact, and will it stay so? Tags, arguments and
// levels follow the reference engine 4.6 (specifications: docs/specifications/tests/DNSSEC-TP/ in
// zonemaster/zonemaster). DNSSEC07 runs first: a zone with neither DS nor DNSKEY is NOT_SIGNED and
// nothing else here runs. DNSSEC12 does not exist in 4.6.
import {
  checkDs, isSupportedAlgorithm, Name, keyTag, nsec3Covers, nsecCovers, RRType, recordIs, rsaKeySize, typeToString, verifyWithKeys,
  type DnskeyData, type DnskeyRecord, type DsData, type Message as DnsMessage, type Nsec3Data, type NsecData,
  type RecordInput, type ResourceRecord, type RrsigData,
} from '@app/dns';
import type { FindingArgs, Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver.ts';
import { byText, recordsFor, recordsOfType } from '../net/response.ts';

const specs = 'zonemaster/zonemaster docs/specifications/tests/DNSSEC-TP';

// IANA's DNSSEC algorithm registry as the reference engine 4.6 classifies it.
type AlgorithmStatus = 'deprecated' | 'reserved' | 'unassigned' | 'private' | 'not-zone-sign' | 'not-recommended' | 'ok';
const algorithmTable: Record<number, { status: AlgorithmStatus; description: string; mnemonic?: string }> = {
  0: { status: 'not-zone-sign', description: 'Delete DS', mnemonic: 'DELETE' },
  1: { status: 'deprecated', description: 'RSA/MD5', mnemonic: 'RSAMD5' },
  2: { status: 'not-zone-sign', description: 'Diffie-Hellman', mnemonic: 'DH' },
  3: { status: 'deprecated', description: 'DSA/SHA1', mnemonic: 'DSA' },
  4: { status: 'reserved', description: 'Reserved' },
  5: { status: 'not-recommended', description: 'RSA/SHA1', mnemonic: 'RSASHA1' },
  6: { status: 'deprecated', description: 'DSA-NSEC3-SHA1', mnemonic: 'DSA-NSEC3-SHA1' },
  7: { status: 'not-recommended', description: 'RSASHA1-NSEC3-SHA1', mnemonic: 'RSASHA1-NSEC3-SHA1' },
  8: { status: 'ok', description: 'RSA/SHA-256', mnemonic: 'RSASHA256' },
  9: { status: 'reserved', description: 'Reserved' },
  10: { status: 'not-recommended', description: 'RSA/SHA-512', mnemonic: 'RSASHA512' },
  11: { status: 'reserved', description: 'Reserved' },
  12: { status: 'deprecated', description: 'GOST R 34.10-2001', mnemonic: 'ECC-GOST' },
  13: { status: 'ok', description: 'ECDSA Curve P-256 with SHA-256', mnemonic: 'ECDSAP256SHA256' },
  14: { status: 'ok', description: 'ECDSA Curve P-384 with SHA-384', mnemonic: 'ECDSAP384SHA384' },
  15: { status: 'ok', description: 'Ed25519', mnemonic: 'ED25519' },
  16: { status: 'ok', description: 'Ed448', mnemonic: 'ED448' },
  252: { status: 'not-zone-sign', description: 'Reserved for Indirect Keys', mnemonic: 'INDIRECT' },
  253: { status: 'private', description: 'private algorithm', mnemonic: 'PRIVATEDNS' },
  254: { status: 'private', description: 'private algorithm OID', mnemonic: 'PRIVATEOID' },
  255: { status: 'reserved', description: 'Reserved' },
};
function algorithm(number: number): { status: AlgorithmStatus; description: string; mnemonic?: string } {
  return algorithmTable[number] ?? (number >= 17 && number <= 122 ? { status: 'unassigned', description: 'Unassigned' } : { status: 'reserved', description: 'Reserved' });
}
const algorithmTags: Record<AlgorithmStatus, string> = {
  deprecated: 'ALGORITHM_DEPRECATED', reserved: 'ALGORITHM_RESERVED', unassigned: 'ALGORITHM_UNASSIGNED', private: 'ALGORITHM_PRIVATE',
  'not-zone-sign': 'ALGORITHM_NOT_ZONE_SIGN', 'not-recommended': 'ALGORITHM_NOT_RECOMMENDED', ok: 'ALGORITHM_OK',
};
const mnemonic = (number: number): string | null => algorithm(number).mnemonic ?? null;

// RSA key sizes (DNSSEC14), per algorithm: minimum, maximum, recommended.
const rsaSizes: Record<number, { min: number; max: number; rec: number }> = {
  5: { min: 512, max: 4096, rec: 2048 }, 7: { min: 512, max: 4096, rec: 2048 }, 8: { min: 512, max: 4096, rec: 2048 }, 10: { min: 1024, max: 4096, rec: 2048 },
};

const digestNames: Record<number, string> = { 0: 'Reserved', 1: 'SHA-1', 2: 'SHA-256', 3: 'GOST R 34.11-94', 4: 'SHA-384' };
// Digest types the reference can compute (GOST is listed but its library lacks it).
const computableDigests = new Set([1, 2, 4]);

const ZONE_KEY = 0x0100;
const SEP = 0x0001;
const REVOKE = 0x0080;
const nonExistentLabel = 'xx--oplk4f3fgh9lksdfhu7h--xx';
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

const dnssec07Tags = (context: TestContext): Set<string> => new Set(context.earlier.filter((f) => f.testcase === 'DNSSEC07').map((f) => f.tag));
function signedGate(context: TestContext, first = false): { run: true } | { run: false; instead?: Message } {
  if (!dnssec07Tags(context).has('NEITHER_DNSKEY_NOR_DS')) return { run: true };
  return first ? { run: false, instead: { tag: 'NOT_SIGNED', args: { zone: context.zone.nameText } } } : { run: false };
}
const gated = { after: ['DNSSEC07'], precondition: (context: TestContext) => signedGate(context) } as const;

// ---- test cases ----

/** DNSSEC01: DS digest types at the parent. */
export const dnssec01: TestCase = {
  id: 'DNSSEC01',
  spec: `${specs}/dnssec01.md`,
  tags: ['DS01_DIGEST_NOT_SUPPORTED_BY_ZM', 'DS01_DS_ALGO_DEPRECATED', 'DS01_DS_ALGO_2_MISSING', 'DS01_DS_ALGO_NOT_DS', 'DS01_DS_ALGO_RESERVED', 'NOT_SIGNED', ...familyTags],
  after: ['DNSSEC07'],
  precondition: (context) => signedGate(context, true),
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    if (zone.name.isRoot && !zone.undelegated) return messages;
    // digest type -> key tag -> addresses
    const seen = new Map<number, Map<number, string[]>>();
    const note = (ds: DsData, ip: string): void => {
      const tags = seen.get(ds.digestType) ?? new Map<number, string[]>();
      tags.set(ds.keyTag, [...(tags.get(ds.keyTag) ?? []), ip]);
      seen.set(ds.digestType, tags);
    };
    if (zone.undelegated) {
      for (const ds of await parentDsRecords(context, messages)) note(ds, '-');
    } else {
      const servers = await parentServers(context, messages);
      const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.DS, { dnssec: true })));
      servers.forEach((server, i) => {
        const response = responses[i];
        if (!good(response) || !hasDo(response)) return;
        const records = dsIn(response, RRType.DS);
        if (!records.some((ds) => ds.name.equals(zone.name))) return;
        for (const ds of records) note(ds.rdata, server.address);
      });
    }
    if (seen.size === 0) return messages;
    let sha256 = false;
    for (const digtype of [...seen.keys()].sort((a, b) => a - b)) {
      for (const [keytag, ips] of [...seen.get(digtype)!].sort(([a], [b]) => a - b)) {
        const args = { ns_ip_list: ipList(ips), domain: zone.nameText, keytag, ds_algo_num: digtype };
        const named = { ...args, ds_algo_mnemo: digestNames[digtype] ?? 'Unassigned' };
        if (digtype === 0) messages.push({ tag: 'DS01_DS_ALGO_NOT_DS', args: named });
        else if (digtype === 1 || digtype === 3) messages.push({ tag: 'DS01_DS_ALGO_DEPRECATED', args: named });
        else if (digtype >= 5) messages.push({ tag: 'DS01_DS_ALGO_RESERVED', args });
        else if (digtype === 2) sha256 = true;
        if (!computableDigests.has(digtype)) messages.push({ tag: 'DS01_DIGEST_NOT_SUPPORTED_BY_ZM', args: named });
      }
    }
    if (!sha256) messages.push({ tag: 'DS01_DS_ALGO_2_MISSING', args: { domain: zone.nameText } });
    return messages;
  },
};

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
        const check = checkDs(zone.name, ds, keys, rrsigs, now());
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

/** DNSSEC03: NSEC3 iteration counts against the smallest key (RFC 5155 §10.3 as 4.6 reads it). */
export const dnssec03: TestCase = {
  id: 'DNSSEC03',
  spec: `${specs}/dnssec03.md`,
  tags: ['NO_NSEC3PARAM', 'NO_DNSKEY', 'MANY_ITERATIONS', 'TOO_MANY_ITERATIONS', 'ITERATIONS_OK'],
  ...gated,
  async run({ zone }) {
    const answered = await zone.queryOneFrom(zone.name, RRType.NSEC3PARAM, { dnssec: true });
    const param = answered?.response;
    const params = param ? recordsOfType(param, RRType.NSEC3PARAM, ['answer']).flatMap((rr) => (recordIs(rr, RRType.NSEC3PARAM) ? [rr.rdata] : [])) : [];
    if (params.length === 0) return [{ tag: 'NO_NSEC3PARAM', args: { server: answered ? answered.server.address : '<no response>' } }];
    const messages: Message[] = [];
    const keyResponse = await zone.queryOne(zone.name, RRType.DNSKEY, { dnssec: true });
    const keys = keyResponse ? dnskeysIn(keyResponse) : [];
    let keylength = 0;
    if (keys.length > 0) {
      const smallest = Math.min(...keys.map((key) => rsaKeySize(key.rdata) ?? 0));
      keylength = smallest > 2048 ? 4096 : smallest > 1024 ? 2048 : 1024;
    } else {
      messages.push({ tag: 'NO_DNSKEY', args: {} });
    }
    for (const { iterations: count } of params) {
      if (count > 100) {
        messages.push({ tag: 'MANY_ITERATIONS', args: { count } });
        const limit = keylength >= 4096 ? 2500 : keylength >= 2048 ? 500 : keylength >= 1024 ? 150 : Infinity;
        if (count > limit) messages.push({ tag: 'TOO_MANY_ITERATIONS', args: { count, keylength } });
      } else if (keylength > 0) {
        messages.push({ tag: 'ITERATIONS_OK', args: { count } });
      }
    }
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

/** DNSSEC05: the algorithms of the DNSKEYs. */
export const dnssec05: TestCase = {
  id: 'DNSSEC05',
  spec: `${specs}/dnssec05.md`,
  tags: [...Object.values(algorithmTags), 'KEY_DETAILS', 'NO_RESPONSE', 'NO_RESPONSE_DNSKEY', ...familyTags],
  ...gated,
  async run(context) {
    const messages: Message[] = [];
    for (const keys of await dnskeysPerServer(context, messages)) {
      for (const key of keys) {
        const algo = key.rdata.algorithm;
        const { status, description } = algorithm(algo);
        const keytag = tagOf(key);
        messages.push({ tag: algorithmTags[status], args: { algo_num: algo, keytag, algo_descr: description } });
        if (status === 'ok' && key.rdata.flags & ZONE_KEY) {
          messages.push({
            tag: 'KEY_DETAILS',
            args: {
              keytag,
              keysize: rsaKeySize(key.rdata) ?? 0,
              sep: key.rdata.flags & SEP ? 'SEP bit set' : 'SEP bit *not* set',
              rfc5011: key.rdata.flags & REVOKE ? 'RFC 5011 revocation bit set' : 'RFC 5011 revocation bit *not* set',
            },
          });
        }
      }
    }
    return messages;
  },
};

/** DNSSEC06: the zone's servers send the RRSIGs with the DNSKEY RRset. */
export const dnssec06: TestCase = {
  id: 'DNSSEC06',
  spec: `${specs}/dnssec06.md`,
  tags: ['EXTRA_PROCESSING_OK', 'EXTRA_PROCESSING_BROKEN', 'ADDITIONAL_DNSKEY_SKIPPED'],
  after: ['DNSSEC07'],
  precondition(context) {
    const tags = dnssec07Tags(context);
    if (tags.has('NEITHER_DNSKEY_NOR_DS')) return { run: false };
    if (tags.has('DNSKEY_BUT_NOT_DS') || tags.has('DNSKEY_AND_DS') || !context.earlier.some((f) => f.testcase === 'DNSSEC07')) return { run: true };
    return { run: false, instead: { tag: 'ADDITIONAL_DNSKEY_SKIPPED', args: {} } };
  },
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

/** DNSSEC07: DNSKEY in the zone and DS at the parent go together. */
export const dnssec07: TestCase = {
  id: 'DNSSEC07',
  spec: `${specs}/dnssec07.md`,
  tags: ['DNSKEY_BUT_NOT_DS', 'DNSKEY_AND_DS', 'NEITHER_DNSKEY_NOR_DS', 'DS_BUT_NOT_DNSKEY'],
  async run(context) {
    const { zone } = context;
    const parent = await zone.parent();
    if (!parent) return [];
    const child = await zone.queryOneFrom(zone.name, RRType.DNSKEY, { dnssec: true });
    if (!child) return [];
    let parentAnswer: { server: Nameserver; response: DnsMessage } | undefined;
    for (const server of parent.servers) {
      if (!context.profile.net[server.family === 4 ? 'ipv4' : 'ipv6']) continue;
      const response = await server.query(zone.name, RRType.DS, { dnssec: true });
      if (response) {
        parentAnswer = { server, response };
        break;
      }
    }
    if (!parentAnswer) return [];
    const dnskey = dnskeysIn(child.response).length > 0;
    // In an undelegated test with DS given, those stand for the parent's (the reference fakes the DS answer).
    const ds = (zone.undelegated?.ds.length ?? 0) > 0 || dsIn(parentAnswer.response, RRType.DS).length > 0;
    const args = { child: child.server.address, parent: parentAnswer.server.address };
    const tag = dnskey ? (ds ? 'DNSKEY_AND_DS' : 'DNSKEY_BUT_NOT_DS') : ds ? 'DS_BUT_NOT_DNSKEY' : 'NEITHER_DNSKEY_NOR_DS';
    return [{ tag, args }];
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

/** The CNAME chain that leads from `qname` to the owner of the A records, or undefined. */
function cnameOwnersTo(target: Name, cnames: ResourceRecord[]): Name[] | undefined {
  const owners = [target];
  let found = false;
  for (let guard = 0; guard <= cnames.length; guard++) {
    const step = cnames.find((rr) => recordIs(rr, RRType.CNAME) && rr.rdata.target.equals(owners[0]));
    if (!step) break;
    found = true;
    owners.unshift(step.name);
  }
  return found ? owners : undefined;
}

/** DNSSEC10: a name that does not exist is denied with signed NSEC or NSEC3 records that cover it. */
export const dnssec10: TestCase = {
  id: 'DNSSEC10',
  spec: `${specs}/dnssec10.md`,
  tags: [
    'DS10_ALGO_NOT_SUPPORTED_BY_ZM', 'DS10_ANSWER_VERIFY_ERROR', 'DS10_HAS_NSEC', 'DS10_HAS_NSEC3', 'DS10_INCONSISTENT_NSEC_NSEC3', 'DS10_MISSING_NSEC_NSEC3',
    'DS10_MIXED_NSEC_NSEC3', 'DS10_NAME_NOT_COVERED_BY_NSEC', 'DS10_NAME_NOT_COVERED_BY_NSEC3', 'DS10_NON_EXISTENT_RESPONSE_ERROR',
    'DS10_NSEC3_MISSING_SIGNATURE', 'DS10_NSEC3_RRSIG_VERIFY_ERROR', 'DS10_NSEC_MISSING_SIGNATURE', 'DS10_NSEC_RRSIG_VERIFY_ERROR', 'DS10_UNSIGNED_ANSWER', ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const probe = Name.fromLabels([Buffer.from(nonExistentLabel), ...zone.name.labels]);
    const messages: Message[] = [];
    const sets = {
      responseError: new Set<string>(), nsec: new Set<string>(), nsec3: new Set<string>(), none: new Set<string>(), mixed: new Set<string>(),
      nsecNotCovered: new Set<string>(), nsec3NotCovered: new Set<string>(), nsecUnsigned: new Set<string>(), nsec3Unsigned: new Set<string>(),
      nsecInvalid: new Set<string>(), nsec3Invalid: new Set<string>(),
    };
    const unsignedAnswer = new Grouped();
    const answerInvalid = new Grouped();
    const unsupported = new Unsupported();
    const servers = await childServers(context, ['DNSKEY', 'A'], messages);
    await Promise.all(
      servers.map(async (server) => {
        const ip = server.address;
        const keys = await zoneKeysFrom(server, zone.name);
        if (!keys) return;
        const response = await server.query(probe, RRType.A, { dnssec: true });
        if (!response || (response.rcode !== 0 && response.rcode !== 3) || !response.aa) {
          sets.responseError.add(ip);
          return;
        }
        const time = now();
        const nsecs = response.authority.filter((rr): rr is ResourceRecord<NsecData> => recordIs(rr, RRType.NSEC));
        const nsec3s = response.authority.filter((rr): rr is ResourceRecord<Nsec3Data> => recordIs(rr, RRType.NSEC3));
        const aRecords = recordsOfType(response, RRType.A, ['answer']);
        const cnames = recordsOfType(response, RRType.CNAME, ['answer']);
        const answerSigs = rrsigsIn(response);
        const wildcardSig = answerSigs.some((sig) => sig.name.labelCount > sig.rdata.labels);
        if (response.rcode === 0) {
          // A signed answer for the name (directly or through signed CNAMEs), not from a wildcard: the name exists.
          const owners = aRecords.some((rr) => rr.name.equals(probe)) ? [] : aRecords.length > 0 && cnames.length > 0 ? cnameOwnersTo(aRecords[0].name, cnames) : undefined;
          const cnamesSigned = (names: Name[]): boolean => names.every((owner) => answerSigs.some((sig) => sig.name.equals(owner) && sig.rdata.typeCovered === RRType.CNAME));
          if (owners && answerSigs.some((sig) => sig.rdata.typeCovered === RRType.A) && (cnames.length === 0 || cnamesSigned(owners.slice(0, -1))) && !wildcardSig) return;
          // A signed CNAME chain from the name, with no denial records.
          if (cnames.some((rr) => rr.name.equals(probe)) && nsecs.length === 0 && nsec3s.length === 0 && !wildcardSig) {
            const chain = [probe];
            for (let guard = 0; guard < cnames.length; guard++) {
              const step = cnames.find((rr) => recordIs(rr, RRType.CNAME) && rr.name.equals(chain[chain.length - 1]));
              if (!step || !recordIs(step, RRType.CNAME)) break;
              chain.push(step.rdata.target);
            }
            if (chain.length === cnames.length + 1 && cnamesSigned(chain.slice(0, -1))) return;
          }
        }
        const answered = [...aRecords, ...cnames];
        // The reference names the owner as the answer spells it: final dot, case as received.
        const ownerKey = (rr: ResourceRecord): string => `${rr.name.toString()}/${typeToString(rr.type)}`;
        if (answered.length > 0) {
          let unsigned = false;
          for (const rr of answered) {
            const direct = answerSigs.some((sig) => sig.name.equals(rr.name) && sig.rdata.typeCovered === rr.type);
            const byWildcard = answerSigs.some((sig) => sig.name.labelCount > sig.rdata.labels && rr.name.isSubdomainOf(sig.name) && sig.rdata.labels <= rr.name.labelCount);
            if (!direct && !byWildcard) {
              unsignedAnswer.add(ownerKey(rr), ip);
              unsigned = true;
            }
          }
          if (unsigned) return;
          let verified = true;
          for (const rr of answered) {
            for (const sig of answerSigs.filter((s) => s.name.equals(rr.name) && s.rdata.typeCovered === rr.type)) {
              const fault = signatureFault([rr], sig, keys, time, false);
              if (fault === 'unsupported') unsupported.add(sig, ip);
              else if (fault) answerInvalid.add(ownerKey(rr), ip);
              if (fault) verified = false;
            }
          }
          if (!verified) return;
        }
        if (nsecs.length > 0 && nsec3s.length > 0) {
          sets.mixed.add(ip);
          return;
        }
        if (nsecs.length === 0 && nsec3s.length === 0) {
          sets.none.add(ip);
          return;
        }
        const isNsec = nsecs.length > 0;
        const records: ResourceRecord[] = isNsec ? nsecs : nsec3s;
        const type = isNsec ? RRType.NSEC : RRType.NSEC3;
        (isNsec ? sets.nsec : sets.nsec3).add(ip);
        const covered = isNsec ? nsecs.some((r) => nsecCovers(r, probe)) : nsec3s.some((r) => nsec3Covers(r, probe));
        if (!covered) (isNsec ? sets.nsecNotCovered : sets.nsec3NotCovered).add(ip);
        const sigs: Rrsig[] = [];
        for (const record of records) {
          const own = rrsigsIn(response, 'authority', record.name).filter((sig) => sig.rdata.typeCovered === type);
          if (own.length === 0) (isNsec ? sets.nsecUnsigned : sets.nsec3Unsigned).add(ip);
          sigs.push(...own);
        }
        for (const sig of sigs) {
          const rrset = records.filter((r) => r.name.equals(sig.name));
          const fault = signatureFault(rrset, sig, keys, time, false);
          if (fault === 'unsupported') unsupported.add(sig, ip);
          else if (fault) (isNsec ? sets.nsecInvalid : sets.nsec3Invalid).add(ip);
        }
      }),
    );
    const perName = (key: string): FindingArgs => {
      const at = key.lastIndexOf('/');
      return { domain: key.slice(0, at), rrtype: key.slice(at + 1) };
    };
    const clean = sets.none.size === 0 && sets.mixed.size === 0;
    messages.push(
      ...listed('DS10_NON_EXISTENT_RESPONSE_ERROR', sets.responseError),
      ...unsignedAnswer.messages('DS10_UNSIGNED_ANSWER', perName),
      ...answerInvalid.messages('DS10_ANSWER_VERIFY_ERROR', perName),
      ...listed('DS10_MISSING_NSEC_NSEC3', sets.none),
      ...(sets.nsec.size > 0 && sets.nsec3.size > 0 ? [{ tag: 'DS10_INCONSISTENT_NSEC_NSEC3', args: { ns_ip_list_nsec: ipList(sets.nsec), ns_ip_list_nsec3: ipList(sets.nsec3) } }] : []),
      ...listed('DS10_MIXED_NSEC_NSEC3', sets.mixed),
      ...(clean && sets.nsec3.size === 0 ? listed('DS10_HAS_NSEC', sets.nsec) : []),
      ...(clean && sets.nsec.size === 0 ? listed('DS10_HAS_NSEC3', sets.nsec3) : []),
      ...listed('DS10_NAME_NOT_COVERED_BY_NSEC', sets.nsecNotCovered),
      ...listed('DS10_NAME_NOT_COVERED_BY_NSEC3', sets.nsec3NotCovered),
      ...listed('DS10_NSEC_MISSING_SIGNATURE', sets.nsecUnsigned),
      ...listed('DS10_NSEC3_MISSING_SIGNATURE', sets.nsec3Unsigned),
      ...listed('DS10_NSEC_RRSIG_VERIFY_ERROR', sets.nsecInvalid),
      ...listed('DS10_NSEC3_RRSIG_VERIFY_ERROR', sets.nsec3Invalid),
      ...unsupported.messages('DS10_ALGO_NOT_SUPPORTED_BY_ZM'),
    );
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
  ...gated,
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
    for (const server of await childServers(context, ['SOA', 'DNSKEY'], messages)) {
      const soa = await server.query(zone.name, RRType.SOA);
      if (!good(soa) || recordsFor(soa, RRType.SOA, zone.name, ['answer']).length === 0) continue;
      const keys = await server.query(zone.name, RRType.DNSKEY);
      if (!good(keys)) undetermined.push(server.address);
      else (dnskeysIn(keys, zone.name).length > 0 ? signed : unsigned).push(server.address);
    }
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
    for (const server of await childServers(context, types, messages)) {
      let algorithms: number[] = [];
      for (const type of types) {
        const rrtype = RRType[type];
        const response = await server.query(zone.name, rrtype, { dnssec: true });
        if (!good(response) || recordsOfType(response, rrtype, ['answer']).length === 0) continue;
        const sigs = rrsigsIn(response);
        if (sigs.length === 0) continue;
        if (type === 'DNSKEY') algorithms = [...new Set(dnskeysIn(response).map((key) => key.rdata.algorithm))];
        for (const algo of algorithms) if (!sigs.some((sig) => sig.rdata.algorithm === algo)) missing[type].add(algo, server.address);
      }
    }
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
  testCases: [dnssec01, dnssec02, dnssec03, dnssec04, dnssec05, dnssec06, dnssec07, dnssec08, dnssec09, dnssec10, dnssec11, dnssec13, dnssec14, dnssec15, dnssec16, dnssec17, dnssec18],
};
