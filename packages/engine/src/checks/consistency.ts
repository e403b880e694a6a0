// Consistency: do all name servers serve the same zone (SOA fields, NS set), and do the parent's glue
// addresses agree with the zone's? Tags, arguments and levels follow the reference engine 4.6
// (specifications: docs/public/specifications/tests/Consistency-TP/ in zonemaster/zonemaster).
import { RRType, Rcode, type Name, recordIs, type Message as DnsMessage, type ResourceRecord, type SoaData } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver.ts';
import { byText, displayName, recordsFor, responseKind } from '../net/response.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Consistency-TP';
// Serials may differ by this much before SOA_SERIAL_VARIATION (the reference allows none).
const serialMaxVariation = 0;
const familyTags = ['IPV4_DISABLED', 'IPV6_DISABLED'];

const familyOn = ({ profile }: TestContext, server: Nameserver): boolean => (server.family === 4 ? profile.net.ipv4 : profile.net.ipv6);

/** Name servers' answers grouped by what `keyOf` reads from them; the problems met on the way in `messages`. */
interface Grouped {
  groups: Map<string, string[]>;
  messages: Message[];
}

/**
 * Asks every delegation and zone server (each name and address once it has answered) for the zone's
 * `qtype`, and groups the servers by `keyOf(records)`; `missingTag` when a response holds none.
 */
async function groupServers(context: TestContext, qtype: number, missingTag: string, keyOf: (records: ResourceRecord[]) => string): Promise<Grouped> {
  const { zone } = context;
  const [glue, ns] = await Promise.all([zone.glue(), zone.ns()]);
  const servers = [...glue, ...ns];
  const rrtype = qtype === RRType.SOA ? 'SOA' : 'NS';
  const responses = await Promise.all(servers.map((server) => (familyOn(context, server) ? server.query(zone.name, qtype) : Promise.resolve(undefined))));
  const groups = new Map<string, string[]>();
  const messages: Message[] = [];
  const answered = new Set<string>();
  servers.forEach((server, i) => {
    const ns = server.toString();
    // A server that failed is asked again when it comes round a second time, and fails again (as in the reference).
    if (answered.has(ns)) return;
    if (!familyOn(context, server)) {
      messages.push({ tag: `IPV${server.family}_DISABLED`, args: { ns, rrtype } });
      return;
    }
    const response = responses[i];
    if (!response) {
      messages.push({ tag: 'NO_RESPONSE', args: { ns } });
      return;
    }
    const records = recordsFor(response, qtype, zone.name);
    if (records.length === 0) {
      messages.push({ tag: missingTag, args: { ns } });
      return;
    }
    const key = keyOf(records);
    groups.set(key, [...(groups.get(key) ?? []), ns]);
    answered.add(ns);
  });
  return { groups, messages };
}

function soaOf(records: ResourceRecord[]): SoaData {
  const soa = records.find((rr) => recordIs(rr, RRType.SOA));
  if (!soa || !recordIs(soa, RRType.SOA)) throw new Error('SOA record without SOA data');
  return soa.rdata;
}

const soaTags = ['NO_RESPONSE', 'NO_RESPONSE_SOA_QUERY', ...familyTags];

/**
 * The shape Consistency02, 03 and 06 share: one value of the SOA per server; ONE_ tag when all agree,
 * else MULTIPLE_ with the count and one message per value with the servers giving it.
 */
function soaFieldTestCase(id: string, oneTag: string, multipleTag: string, eachTag: string, valueOf: (soa: SoaData) => Record<string, string | number>): TestCase {
  return {
    id,
    spec: `${specs}/${id.toLowerCase()}.md`,
    tags: [oneTag, multipleTag, eachTag, ...soaTags],
    async run(context) {
      const { groups, messages } = await groupServers(context, RRType.SOA, 'NO_RESPONSE_SOA_QUERY', (records) => JSON.stringify(valueOf(soaOf(records))));
      const values = [...groups.keys()].sort(byText);
      if (values.length === 1) {
        messages.push({ tag: oneTag, args: JSON.parse(values[0]) as Record<string, string | number> });
      } else if (values.length > 1) {
        messages.push({ tag: multipleTag, args: { count: values.length } });
        for (const value of values) messages.push({ tag: eachTag, args: { ...(JSON.parse(value) as Record<string, string | number>), ns_list: groups.get(value)!.sort(byText).join(';') } });
      }
      return messages;
    },
  };
}

/** Consistency01: every server serves the same SOA serial. */
export const consistency01: TestCase = {
  id: 'Consistency01',
  spec: `${specs}/consistency01.md`,
  tags: ['ONE_SOA_SERIAL', 'MULTIPLE_SOA_SERIALS', 'SOA_SERIAL', 'SOA_SERIAL_VARIATION', ...soaTags],
  async run(context) {
    const { groups, messages } = await groupServers(context, RRType.SOA, 'NO_RESPONSE_SOA_QUERY', (records) => String(soaOf(records).serial));
    // Serials as text, sorted as text, as the reference compares them.
    const serials = [...groups.keys()].sort(byText);
    for (const serial of serials) messages.push({ tag: 'SOA_SERIAL', args: { serial: Number(serial), ns_list: groups.get(serial)!.sort(byText).join(';') } });
    if (serials.length === 1) {
      messages.push({ tag: 'ONE_SOA_SERIAL', args: { serial: Number(serials[0]) } });
    } else if (serials.length > 1) {
      messages.push({ tag: 'MULTIPLE_SOA_SERIALS', args: { count: serials.length } });
      const [min, max] = [Number(serials[0]), Number(serials.at(-1))];
      if (max - min > serialMaxVariation) messages.push({ tag: 'SOA_SERIAL_VARIATION', args: { serial_min: min, serial_max: max, max_variation: serialMaxVariation } });
    }
    return messages;
  },
};

/** Consistency02: every server serves the same SOA RNAME. */
export const consistency02 = soaFieldTestCase('Consistency02', 'ONE_SOA_RNAME', 'MULTIPLE_SOA_RNAMES', 'SOA_RNAME', (soa) => ({ rname: soa.rname.toLowerCase().toString() }));

/** Consistency03: every server serves the same SOA refresh, retry, expire and minimum. */
export const consistency03 = soaFieldTestCase('Consistency03', 'ONE_SOA_TIME_PARAMETER_SET', 'MULTIPLE_SOA_TIME_PARAMETER_SET', 'SOA_TIME_PARAMETER_SET', (soa) => ({
  refresh: soa.refresh,
  retry: soa.retry,
  expire: soa.expire,
  minimum: soa.minimum,
}));

/** Consistency06: every server serves the same SOA MNAME. */
export const consistency06 = soaFieldTestCase('Consistency06', 'ONE_SOA_MNAME', 'MULTIPLE_SOA_MNAMES', 'SOA_MNAME', (soa) => ({ mname: soa.mname.toLowerCase().toString() }));

/** Consistency04: every server serves the same NS set. */
export const consistency04: TestCase = {
  id: 'Consistency04',
  spec: `${specs}/consistency04.md`,
  tags: ['ONE_NS_SET', 'MULTIPLE_NS_SET', 'NS_SET', 'NO_RESPONSE', 'NO_RESPONSE_NS_QUERY', ...familyTags],
  async run(context) {
    const nsSet = (records: ResourceRecord[]): string =>
      records
        .flatMap((rr) => (recordIs(rr, RRType.NS) ? [rr.rdata.target.toLowerCase().toString()] : []))
        .sort(byText)
        .join(';');
    const { groups, messages } = await groupServers(context, RRType.NS, 'NO_RESPONSE_NS_QUERY', nsSet);
    const sets = [...groups.keys()].sort(byText);
    if (sets.length === 1) {
      messages.push({ tag: 'ONE_NS_SET', args: { nsname_list: sets[0] } });
    } else if (sets.length > 1) {
      messages.push({ tag: 'MULTIPLE_NS_SET', args: { count: sets.length } });
      for (const set of sets) messages.push({ tag: 'NS_SET', args: { nsname_list: set, servers: groups.get(set)!.join(';') } });
    }
    return messages;
  },
};

/** 'ns1.example.test./192.0.2.1' for each address record of `owner`, the form Consistency05 compares. */
function addressStrings(message: DnsMessage | undefined, owner: Name, sections?: ('answer' | 'authority' | 'additional')[]): string[] {
  if (!message) return [];
  return [...recordsFor(message, RRType.A, owner, sections), ...recordsFor(message, RRType.AAAA, owner, sections)].flatMap((rr) =>
    recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA) ? [`${rr.name.toLowerCase().toString()}/${rr.rdata.address}`] : [],
  );
}

/** What one zone server says of an in-zone name server's addresses: a problem, or the records (undefined: no problem). */
async function childAddresses(context: TestContext, server: Nameserver, nsName: Name, qtype: number): Promise<{ problem?: Message; addresses: string[] }> {
  const response = await server.query(nsName, qtype, { rd: false });
  if (!response) return { problem: { tag: 'NO_RESPONSE', args: { ns: server.toString() } }, addresses: [] };
  if (responseKind(response) === 'referral') {
    const resolution = await context.zone.resolve(nsName, qtype);
    return { addresses: addressStrings(resolution.message, nsName, ['answer']) };
  }
  if (response.aa && response.rcode === Rcode.NOERROR) return { addresses: addressStrings(response, nsName, ['answer']) };
  if (response.aa && response.rcode === Rcode.NXDOMAIN) return { addresses: [] };
  return { problem: { tag: 'CHILD_NS_FAILED', args: { ns: server.toString() } }, addresses: [] };
}

/** Consistency05: the parent's glue addresses are the addresses the zone (or, out of the zone, the world) gives. */
export const consistency05: TestCase = {
  id: 'Consistency05',
  spec: `${specs}/consistency05.md`,
  tags: ['ADDRESSES_MATCH', 'IN_BAILIWICK_ADDR_MISMATCH', 'OUT_OF_BAILIWICK_ADDR_MISMATCH', 'EXTRA_ADDRESS_CHILD', 'CHILD_ZONE_LAME', 'CHILD_NS_FAILED', 'NO_RESPONSE'],
  async run(context) {
    const { zone } = context;
    const parent = await zone.parent();
    const parentServers = (parent?.servers ?? []).filter((server) => familyOn(context, server));
    const askParent = async (qname: Name, qtype: number): Promise<(DnsMessage | undefined)[]> => Promise.all(parentServers.map((server) => server.query(qname, qtype)));

    // Glue the parent hands out, by the NS name it belongs to.
    const delegatedNames = new Map<string, Name>();
    for (const response of await askParent(zone.name, RRType.NS)) {
      for (const rr of response ? recordsFor(response, RRType.NS, zone.name) : []) if (recordIs(rr, RRType.NS)) delegatedNames.set(rr.rdata.target.key(), rr.rdata.target.toLowerCase());
    }
    const glueOf = new Map<string, Name>();
    await Promise.all(
      [...delegatedNames.values()].map(async (nsName) => {
        const responses = [...(await askParent(nsName, RRType.A)), ...(await askParent(nsName, RRType.AAAA))];
        for (const response of responses) for (const text of addressStrings(response, nsName)) glueOf.set(text, nsName);
      }),
    );
    const strictGlue = new Set([...glueOf].filter(([, nsName]) => nsName.isSubdomainOf(zone.name)).map(([text]) => text));
    const extendedGlue = new Map<string, { name: Name; addresses: string[] }>();
    for (const [text, nsName] of glueOf) {
      if (nsName.isSubdomainOf(zone.name)) continue;
      const entry = extendedGlue.get(nsName.key()) ?? { name: nsName, addresses: [] };
      entry.addresses.push(text);
      extendedGlue.set(nsName.key(), entry);
    }

    // What the zone's own servers say of its in-zone name servers.
    const [glueNames, childNames, allServers] = await Promise.all([zone.glueNames(), zone.childNsNames(), zone.allServers()]);
    const inZoneNames = [...new Map([...glueNames, ...childNames].map((n) => [displayName(n), n])).entries()]
      .sort(([a], [b]) => byText(a, b))
      .map(([, n]) => n)
      .filter((n) => n.isSubdomainOf(zone.name));
    const servers = allServers.filter((server) => familyOn(context, server));
    const messages: Message[] = [];
    const childStrings = new Set<string>();
    const perName = await Promise.all(
      inZoneNames.map((nsName) => Promise.all(servers.map((server) => Promise.all([childAddresses(context, server, nsName, RRType.A), childAddresses(context, server, nsName, RRType.AAAA)])))),
    );
    for (const perServer of perName) {
      let lame = true;
      for (const [a, aaaa] of perServer) {
        for (const outcome of [a, aaaa]) if (outcome.problem) messages.push(outcome.problem);
        if (!a.problem || !aaaa.problem) lame = false;
        for (const text of [...a.addresses, ...aaaa.addresses]) childStrings.add(text);
      }
      if (lame) return [...messages, { tag: 'CHILD_ZONE_LAME', args: {} }];
    }

    const inZoneMismatch = [...strictGlue].some((text) => !childStrings.has(text));
    const extraInChild = [...childStrings].filter((text) => !strictGlue.has(text)).sort(byText);
    if (inZoneMismatch) {
      messages.push({ tag: 'IN_BAILIWICK_ADDR_MISMATCH', args: { parent_addresses: [...strictGlue].sort(byText).join(';'), zone_addresses: [...childStrings].sort(byText).join(';') } });
    }
    if (extraInChild.length > 0) messages.push({ tag: 'EXTRA_ADDRESS_CHILD', args: { ns_ip_list: extraInChild.join(';') } });

    // Out of the zone, the addresses come from resolving the name.
    let outOfZoneMismatch = false;
    const outOfZone = [...extendedGlue.values()].sort((x, y) => byText(displayName(x.name), displayName(y.name)));
    const resolved = await Promise.all(outOfZone.map(({ name }) => Promise.all([zone.resolve(name, RRType.A), zone.resolve(name, RRType.AAAA)])));
    outOfZone.forEach(({ name, addresses }, i) => {
      const found = new Set(resolved[i].flatMap((resolution) => addressStrings(resolution.message, name, ['answer'])));
      if (addresses.every((text) => found.has(text))) return;
      outOfZoneMismatch = true;
      messages.push({ tag: 'OUT_OF_BAILIWICK_ADDR_MISMATCH', args: { parent_addresses: [...addresses].sort(byText).join(';'), zone_addresses: [...found].sort(byText).join(';') } });
    });
    if (!inZoneMismatch && extraInChild.length === 0 && !outOfZoneMismatch) messages.push({ tag: 'ADDRESSES_MATCH', args: {} });
    return messages;
  },
};

export const consistency: TestModule = {
  name: 'CONSISTENCY',
  testCases: [consistency01, consistency02, consistency03, consistency04, consistency05, consistency06],
};
