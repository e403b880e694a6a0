// Connectivity: every name server answers SOA and NS over UDP and over TCP, and the servers are spread
// over more than one autonomous system. Tags and levels follow the reference engine 4.6
// (specifications: docs/public/specifications/tests/Connectivity-TP/ in zonemaster/zonemaster).
import { Rcode, RRType, type Message as DnsMessage, type Name } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import { lookUpAsn, type AsnFound } from '../net/asn-lookup.ts';
import type { Nameserver } from '../net/nameserver.ts';
import { addressesIn, rcodeName } from '../net/response.ts';

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
  const responses = await Promise.all(
    servers.map(async (server) => (familyOff(context, server) ? undefined : Promise.all([server.query(zone.name, RRType.SOA, { tcp }), server.query(zone.name, RRType.NS, { tcp })]))),
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

function judge(response: DnsMessage | undefined, qtype: 'SOA' | 'NS', ns: string, prefix: string, transport: string, { zone }: TestContext): Message[] {
  if (!response) return [{ tag: `${prefix}_NO_RESPONSE_${qtype}_QUERY_${transport}`, args: { ns } }];
  if (response.rcode !== Rcode.NOERROR) return [{ tag: `${prefix}_UNEXPECTED_RCODE_${qtype}_QUERY_${transport}`, args: { ns, rcode: rcodeName(response.rcode) } }];
  // The reference looks at the first record of the type in the answer, whatever its owner.
  const first = response.answer.find((rr) => rr.type === RRType[qtype]);
  if (!first) return [{ tag: `${prefix}_MISSING_${qtype}_RECORD_${transport}`, args: { ns } }];
  if (!first.name.equals(zone.name)) {
    return [{ tag: `${prefix}_WRONG_${qtype}_RECORD_${transport}`, args: { ns, domain_found: first.name.toLowerCase().toString(), domain_expected: zone.name.toString() } }];
  }
  if (!response.aa) return [{ tag: `${prefix}_${qtype}_RECORD_NOT_AA_${transport}`, args: { ns } }];
  return [];
}

const udpTags = ['NO_RESPONSE_UDP', 'NO_RESPONSE_SOA_QUERY_UDP', 'NO_RESPONSE_NS_QUERY_UDP', 'UNEXPECTED_RCODE_SOA_QUERY_UDP', 'UNEXPECTED_RCODE_NS_QUERY_UDP', 'MISSING_SOA_RECORD_UDP', 'MISSING_NS_RECORD_UDP', 'WRONG_SOA_RECORD_UDP', 'WRONG_NS_RECORD_UDP', 'SOA_RECORD_NOT_AA_UDP', 'NS_RECORD_NOT_AA_UDP'];

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
function diversity(family: 4 | 6, found: AsnFound[]): Message[] {
  const asns = [...new Set(found.flatMap((f) => f.asns))].sort((a, b) => a - b);
  if (asns.length === 0) return [];
  if (asns.length === 1) return [{ tag: `IPV${family}_ONE_ASN`, args: { asn: asns[0] } }];
  const sets = new Set(found.filter((f) => f.asns.length > 0).map((f) => [...f.asns].sort((a, b) => a - b).join(',')));
  if (sets.size === 1) return [{ tag: `IPV${family}_SAME_ASN`, args: { asn_list: [...sets][0] } }];
  return [{ tag: `IPV${family}_DIFFERENT_ASN`, args: { asn_list: asns.join(',') } }];
}

export const connectivity03: TestCase = {
  id: 'Connectivity03',
  spec: `${specs}/connectivity03.md`,
  tags: ['ASN_INFOS_RAW', 'ASN_INFOS_ANNOUNCE_BY', 'ASN_INFOS_ANNOUNCE_IN', 'EMPTY_ASN_SET', 'ERROR_ASN_DATABASE', 'IPV4_DIFFERENT_ASN', 'IPV4_ONE_ASN', 'IPV4_SAME_ASN', 'IPV6_DIFFERENT_ASN', 'IPV6_ONE_ASN', 'IPV6_SAME_ASN', ...familyTags],
  async run(context) {
    const { zone, profile } = context;
    // The delegation's addresses (Method 4), each once.
    const addresses = [...new Set((await zone.glue()).map((server) => server.address))];
    const whoisHost = async (host: Name): Promise<string[]> => {
      const { message, canonical } = await zone.resolve(host, RRType.A);
      return message ? addressesIn(message, canonical, ['answer']) : [];
    };
    const lookups = await Promise.all(addresses.map((address) => lookUpAsn(address, profile.asn_db, (name) => zone.other(name), whoisHost)));
    const messages: Message[] = [];
    const byFamily: Record<4 | 6, AsnFound[]> = { 4: [], 6: [] };
    addresses.forEach((ns_ip, i) => {
      const lookup = lookups[i];
      if (!lookup) return;
      if (lookup.status !== 'found') {
        messages.push({ tag: lookup.status === 'empty' ? 'EMPTY_ASN_SET' : 'ERROR_ASN_DATABASE', args: { ns_ip } });
        return;
      }
      if (lookup.raw) messages.push({ tag: 'ASN_INFOS_RAW', args: { ns_ip, data: lookup.raw } });
      messages.push({ tag: 'ASN_INFOS_ANNOUNCE_BY', args: { ns_ip, asn: lookup.asns.map(String).sort().join(',') } });
      if (lookup.prefix) messages.push({ tag: 'ASN_INFOS_ANNOUNCE_IN', args: { ns_ip, prefix: lookup.prefix } });
      byFamily[ns_ip.includes(':') ? 6 : 4].push(lookup);
    });
    return [...messages, ...diversity(4, byFamily[4]), ...diversity(6, byFamily[6])];
  },
};

export const connectivity: TestModule = { name: 'CONNECTIVITY', testCases: [connectivity01, connectivity02, connectivity03] };

