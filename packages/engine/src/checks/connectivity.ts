// Connectivity: every name server answers SOA and NS over UDP and over TCP, and the servers are spread
// over more than one autonomous system and more than one announced IP prefix. Tags, arguments and
// levels follow the reference engine 9.0
// (specifications: docs/public/specifications/tests/Connectivity-TP/ in zonemaster/zonemaster).
import { ipFamily, Rcode, RRType, type Message as DnsMessage, type Name } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import { lookUpAsn, type AsnFound, type AsnLookup } from './connectivity-asn-lookup.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { serverSets } from '../zone/server-sets.ts';
import { addressesIn, byText, rcodeName } from '../net/response.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Connectivity-TP';
const familyTags = ['IPV4_DISABLED', 'IPV6_DISABLED'] as const;

function familyOff(context: TestContext, server: Nameserver): boolean {
  return !(server.family === 4 ? context.profile.net.ipv4 : context.profile.net.ipv6);
}

/** SOA and NS to every server over one transport; the tags differ only by prefix and transport name. */
async function answersOver(context: TestContext, transport: 'UDP' | 'TCP'): Promise<Message[]> {
  const prefix = transport === 'UDP' ? 'CN01' : 'CN02';
  const { zone } = context;
  const servers = await zone.allServers();
  const tcp = transport === 'TCP';
  // SOA before NS, as the reference asks: a server silent to the SOA query is not asked NS on that transport.
  const responses = await Promise.all(
    servers.map(async (server) => {
      if (familyOff(context, server)) return undefined;
      const soa = await server.query(zone.name, RRType.SOA, { tcp });
      return [soa, await server.query(zone.name, RRType.NS, { tcp })] as const;
    }),
  );
  const messages: Message[] = [];
  servers.forEach((server, i) => {
    const ns = server.toString();
    const pair = responses[i];
    if (!pair) {
      for (const rrtype of ['SOA', 'NS']) messages.push({ tag: `IPV${server.family}_DISABLED`, args: { ns, rrtype } });
      return;
    }
    if (!pair[0] && !pair[1]) {
      messages.push({ tag: `${prefix}_NO_RESPONSE_${transport}`, args: { ns } });
      return;
    }
    (['SOA', 'NS'] as const).forEach((qtype, j) => messages.push(...judge(pair[j], qtype, ns, `${prefix}`, transport, context)));
  });
  return messages;
}

function judge(
  response: DnsMessage | undefined,
  qtype: 'SOA' | 'NS',
  ns: string,
  prefix: string,
  transport: string,
  { zone }: TestContext,
): Message[] {
  if (!response) return [{ tag: `${prefix}_NO_RESPONSE_${qtype}_QUERY_${transport}`, args: { ns } }];
  if (response.rcode !== Rcode.NOERROR)
    return [{ tag: `${prefix}_UNEXPECTED_RCODE_${qtype}_QUERY_${transport}`, args: { ns, rcode: rcodeName(response.rcode) } }];
  // The reference looks at the first record of the type in the answer, whatever its owner.
  const first = response.answer.find((rr) => rr.type === RRType[qtype]);
  if (!first) return [{ tag: `${prefix}_MISSING_${qtype}_RECORD_${transport}`, args: { ns } }];
  if (!first.name.equals(zone.name)) {
    return [
      {
        tag: `${prefix}_WRONG_${qtype}_RECORD_${transport}`,
        args: { ns, domain_found: first.name.toLowerCase().toString(), domain_expected: zone.name.toString() },
      },
    ];
  }
  if (!response.aa) return [{ tag: `${prefix}_${qtype}_RECORD_NOT_AA_${transport}`, args: { ns } }];
  return [];
}

const udpTags = [
  'NO_RESPONSE_UDP',
  'NO_RESPONSE_SOA_QUERY_UDP',
  'NO_RESPONSE_NS_QUERY_UDP',
  'UNEXPECTED_RCODE_SOA_QUERY_UDP',
  'UNEXPECTED_RCODE_NS_QUERY_UDP',
  'MISSING_SOA_RECORD_UDP',
  'MISSING_NS_RECORD_UDP',
  'WRONG_SOA_RECORD_UDP',
  'WRONG_NS_RECORD_UDP',
  'SOA_RECORD_NOT_AA_UDP',
  'NS_RECORD_NOT_AA_UDP',
];

export const connectivity01: TestCase = {
  id: 'Connectivity01',
  spec: `${specs}/connectivity01.md`,
  tags: [...udpTags.map((t) => `CN01_${t}`), 'CN01_IPV4_DISABLED', 'CN01_IPV6_DISABLED', ...familyTags],
  async run(context) {
    const servers = await context.zone.allServers();
    const messages: Message[] = [];
    for (const family of [4, 6] as const) {
      const off = servers.filter((server) => server.family === family && familyOff(context, server));
      if (off.length > 0) messages.push({ tag: `CN01_IPV${family}_DISABLED`, args: { ns_list: off.map((s) => s.toString()).join(';') } });
    }
    return [...messages, ...(await answersOver(context, 'UDP'))];
  },
};

export const connectivity02: TestCase = {
  id: 'Connectivity02',
  spec: `${specs}/connectivity02.md`,
  tags: [...udpTags.map((t) => `CN02_${t.replace(/UDP$/, 'TCP')}`), ...familyTags],
  run: (context) => answersOver(context, 'TCP'),
};

/** The per-family verdict: one AS, the same set of several, or different ones. */
function asDiversity(family: 4 | 6, found: AsnFound[]): Message[] {
  const asns = [...new Set(found.flatMap((f) => f.asns))].sort((a, b) => a - b);
  if (asns.length === 0) return [];
  if (asns.length === 1) return [{ tag: `IPV${family}_ONE_ASN`, args: { asn: asns[0] } }];
  const sets = new Set(found.map((f) => [...f.asns].sort((a, b) => a - b).join(',')));
  if (sets.size === 1) return [{ tag: `IPV${family}_SAME_ASN`, args: { asn_list: [...sets][0] } }];
  return [{ tag: `IPV${family}_DIFFERENT_ASN`, args: { asn_list: asns.join(',') } }];
}

/** A prefix as the reference prints it: the network address in full (IPv4) or compressed (IPv6), and the length. */
function prefixText(prefix: string): string {
  const [network = '', length = ''] = prefix.split('/');
  return ipFamily(network) === 6 ? `${new URL(`http://[${network}]/`).hostname.slice(1, -1)}/${length}` : `${network}/${length}`;
}

/** The AS lookup of each address, through the run's recursor (shared by Connectivity03 and 04). */
function asnLookups(context: TestContext, addresses: readonly string[]): Promise<AsnLookup[]> {
  const { zone, profile } = context;
  const lookUpTxt = async (qname: Name): Promise<DnsMessage | undefined> => (await zone.recurse(qname, RRType.TXT)).message;
  const whoisHost = async (host: Name): Promise<string[]> => {
    const { message, canonical } = await zone.resolve(host, RRType.A);
    return message ? addressesIn(message, canonical, ['answer']) : [];
  };
  return Promise.all(addresses.map((address) => lookUpAsn(address, profile.asn_db, lookUpTxt, whoisHost)));
}

const familyOf = (address: string): 4 | 6 => (ipFamily(address) === 6 ? 6 : 4);

export const connectivity03: TestCase = {
  id: 'Connectivity03',
  spec: `${specs}/connectivity03.md`,
  tags: [
    'ASN_INFOS_RAW',
    'ASN_INFOS_ANNOUNCE_BY',
    'ASN_INFOS_ANNOUNCE_IN',
    'EMPTY_ASN_SET',
    'ERROR_ASN_DATABASE',
    'IPV4_DIFFERENT_ASN',
    'IPV4_ONE_ASN',
    'IPV4_SAME_ASN',
    'IPV6_DIFFERENT_ASN',
    'IPV6_ONE_ASN',
    'IPV6_SAME_ASN',
  ],
  // Each lookup is a chain of round trips (the AS zone's servers found from the root): started as soon
  // as the delegation's addresses are known, which are nearly always the zone's too.
  async lookAhead(context) {
    await asnLookups(context, [...new Set((await context.zone.glue()).map((server) => server.address))]);
  },
  async run(context) {
    // The delegation's and the zone's addresses (Method 4 and 5), each once, IPv4 first.
    const unique = [...new Set((await context.zone.allServers()).map((server) => server.address))];
    const addresses = [...unique.filter((a) => familyOf(a) === 4), ...unique.filter((a) => familyOf(a) === 6)];
    const lookups = await asnLookups(context, addresses);
    const messages: Message[] = [];
    const byFamily: Record<4 | 6, AsnFound[]> = { 4: [], 6: [] };
    addresses.forEach((ns_ip, i) => {
      const lookup = lookups[i];
      if (lookup.status !== 'found') {
        messages.push({ tag: lookup.status === 'empty' ? 'EMPTY_ASN_SET' : 'ERROR_ASN_DATABASE', args: { ns_ip } });
        return;
      }
      if (lookup.raw) messages.push({ tag: 'ASN_INFOS_RAW', args: { ns_ip, data: lookup.raw } });
      messages.push({ tag: 'ASN_INFOS_ANNOUNCE_BY', args: { ns_ip, asn: lookup.asns.map(String).sort().join(',') } });
      if (lookup.prefix) messages.push({ tag: 'ASN_INFOS_ANNOUNCE_IN', args: { ns_ip, prefix: prefixText(lookup.prefix) } });
      byFamily[familyOf(ns_ip)].push(lookup);
    });
    return [...messages, ...asDiversity(4, byFamily[4]), ...asDiversity(6, byFamily[6])];
  },
};

export const connectivity04: TestCase = {
  id: 'Connectivity04',
  spec: `${specs}/connectivity04.md`,
  // Its NS queries to the delegated servers are Connectivity01's; the reference asks them after it.
  after: ['Connectivity01', 'Connectivity02'],
  tags: [
    'CN04_ASN_INFOS_RAW',
    'CN04_ASN_INFOS_ANNOUNCE_IN',
    'CN04_EMPTY_PREFIX_SET',
    'CN04_ERROR_PREFIX_DATABASE',
    ...[4, 6].flatMap((f) => [`CN04_IPV${f}_DIFFERENT_PREFIX`, `CN04_IPV${f}_SAME_PREFIX`, `CN04_IPV${f}_SINGLE_PREFIX`]),
  ],
  async run(context) {
    // Delegation servers, then the zone's (as 9.0 gathers them); the first name met at an address stands for it.
    const { delegation, zone } = await serverSets(context.zone);
    const servers = [
      ...new Map([...delegation.servers, ...zone.servers].reverse().map((server) => [server.address, server])).values(),
    ].reverse();
    const lookups = await asnLookups(
      context,
      servers.map((server) => server.address),
    );
    const messages: Message[] = [];
    const byPrefix: Record<4 | 6, Map<string, string[]>> = { 4: new Map(), 6: new Map() };
    const asked: Record<4 | 6, number> = { 4: 0, 6: 0 };
    servers.forEach((server, i) => {
      const lookup = lookups[i];
      const ns_ip = server.address;
      asked[familyOf(ns_ip)]++;
      if (lookup.status !== 'found') {
        messages.push({ tag: lookup.status === 'empty' ? 'CN04_EMPTY_PREFIX_SET' : 'CN04_ERROR_PREFIX_DATABASE', args: { ns_ip } });
        return;
      }
      if (lookup.raw) messages.push({ tag: 'CN04_ASN_INFOS_RAW', args: { ns_ip, data: lookup.raw } });
      if (!lookup.prefix) return;
      const prefix = prefixText(lookup.prefix);
      messages.push({ tag: 'CN04_ASN_INFOS_ANNOUNCE_IN', args: { ns_ip, prefix } });
      const family = familyOf(prefix.split('/')[0]);
      byPrefix[family].set(prefix, [...(byPrefix[family].get(prefix) ?? []), server.toString()]);
    });
    for (const family of [4, 6] as const) {
      const prefixes = [...byPrefix[family].entries()].sort(([a], [b]) => byText(a, b));
      const alone: string[] = [];
      for (const [ip_prefix, list] of prefixes) {
        if (list.length === 1) alone.push(list[0]);
        else messages.push({ tag: `CN04_IPV${family}_SAME_PREFIX`, args: { ip_prefix, ns_list: [...list].sort().join(';') } });
      }
      if (alone.length > 0)
        messages.push({ tag: `CN04_IPV${family}_DIFFERENT_PREFIX`, args: { ns_list: [...new Set(alone)].sort().join(';') } });
      if (prefixes.length === 1 && prefixes[0][1].length === asked[family])
        messages.push({ tag: `CN04_IPV${family}_SINGLE_PREFIX`, args: {} });
    }
    return messages;
  },
};

export const connectivity: TestModule = {
  name: 'CONNECTIVITY',
  testCases: [connectivity01, connectivity02, connectivity03, connectivity04],
};
