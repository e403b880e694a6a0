// Nameserver: how each name server behaves — recursion, EDNS, zone transfers, source address, AAAA,
// case handling, upward referrals, software version disclosure. Tags, arguments and levels follow the
// reference engine 9.0 (specifications: docs/public/specifications/tests/Nameserver-TP/ in zonemaster/zonemaster).
// Every test case starts after the modules the reference runs before Nameserver, and after the
// Nameserver test cases before it (the reference runs them one by one): a server found silent on a
// transport there (its plain SOA query unanswered, in Nameserver04 or 08, say) is not asked again on it.
import { randomInt } from 'node:crypto';
import { Name, Rcode, recordIs, recordToString, RRClass, RRType, sameIpAddress, type Message as DnsMessage } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver, QueryFlags } from '../net/nameserver-client.ts';
import { byPresentation, byText, displayName, rcodeName, recordsFor } from '../net/response.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Nameserver-TP';
const familyTags = ['IPV4_DISABLED', 'IPV6_DISABLED'] as const;

/** Names no authoritative server serves: a recursor answers them (Nameserver01). */
const nonexistentNames = ['xn--nameservertest.iis.se', 'xn--nameservertest.icann.org', 'xn--nameservertest.ripe.net'];
/** An EDNS option code IANA has not assigned (Nameserver11), as the reference picks it. */
const unassignedOptionCode = 137;
/** The query Nameserver02, 10 and 11 share: SOA with EDNS version 0 and a 512-byte payload. */
const edns512: QueryFlags = { edns: { udpSize: 512 } };

// The header rcode and the EDNS extended bits, which the reference reads apart.
const headerRcode = (m: DnsMessage): number => m.rcode & 0xf;
const extendedRcode = (m: DnsMessage): number => m.rcode >> 4;
const headerRcodeName = (m: DnsMessage): string => rcodeName(headerRcode(m));

/**
 * The zone's servers (Method 4 ∪ 5) with the IPVx_DISABLED message for those whose IP family the
 * profile turns off (those are not asked).
 */
async function serversToAsk(context: TestContext, rrtype: string): Promise<{ servers: Nameserver[]; disabled: Message[] }> {
  const all = await context.zone.allServers();
  const on = (s: Nameserver): boolean => (s.family === 4 ? context.profile.net.ipv4 : context.profile.net.ipv6);
  return {
    servers: all.filter(on),
    disabled: all.filter((s) => !on(s)).map((s) => ({ tag: `IPV${s.family}_DISABLED`, args: { ns: s.toString(), rrtype } })),
  };
}

/** Asks every server at once and reads the answers in server order. */
async function perServer<T>(servers: Nameserver[], ask: (server: Nameserver) => Promise<T>): Promise<[Nameserver, T][]> {
  const results = await Promise.all(servers.map(ask));
  return servers.map((server, i) => [server, results[i]]);
}

/** ns_ip_list: addresses, sorted and without repeats. */
const ipList = (addresses: string[]): string => [...new Set(addresses)].sort(byText).join(';');

/** The name with each letter's case picked at random, never all lower case (Nameserver08, 09). */
function scrambledCase(text: string, avoid: readonly string[]): string {
  if (!/[a-z]/.test(text)) return text;
  for (;;) {
    const scrambled = [...text].map((c) => (randomInt(2) ? c.toUpperCase() : c)).join('');
    if (!avoid.includes(scrambled)) return scrambled;
  }
}

export const nameserver01: TestCase = {
  id: 'Nameserver01',
  afterEarlierModules: true,
  spec: `${specs}/nameserver01.md`,
  tags: ['IS_A_RECURSOR', 'NO_RECURSOR', 'NO_RESPONSE', ...familyTags],
  async run(context) {
    const { servers, disabled } = await serversToAsk(context, 'A');
    const answers = await perServer(servers, (server) => Promise.all(nonexistentNames.map((name) => server.query(name, RRType.A))));
    const messages: Message[] = [...disabled];
    for (const [server, responses] of answers) {
      const ns = server.toString();
      responses.forEach((response, i) => {
        if (!response) messages.push({ tag: 'NO_RESPONSE', args: { ns, domain: nonexistentNames[i] } });
      });
      const got = responses.filter((r) => r !== undefined);
      // Recursion available, or NXDOMAIN for names it cannot be authoritative for, betrays a recursor.
      const recursor = got.some((r) => r.ra) || (got.length > 0 && got.every((r) => headerRcode(r) === Rcode.NXDOMAIN));
      if (recursor) messages.push({ tag: 'IS_A_RECURSOR', args: { ns } });
      else if (got.length === responses.length) messages.push({ tag: 'NO_RECURSOR', args: { ns } });
    }
    return messages;
  },
};

export const nameserver02: TestCase = {
  id: 'Nameserver02',
  afterEarlierModules: true,
  spec: `${specs}/nameserver02.md`,
  tags: [
    'BREAKS_ON_EDNS',
    'EDNS_RESPONSE_WITHOUT_EDNS',
    'EDNS_VERSION_ERROR',
    'EDNS0_SUPPORT',
    'NO_EDNS_SUPPORT',
    'NO_RESPONSE',
    'NS_ERROR',
    ...familyTags,
  ],
  async run(context) {
    const { zone } = context;
    const { servers, disabled } = await serversToAsk(context, 'SOA');
    const domain = zone.nameText;
    const answers = await perServer(servers, async (server) => {
      const response = await server.query(zone.name, RRType.SOA, edns512);
      // No answer with EDNS: does one come without?
      return { response, plain: response ? undefined : await server.query(zone.name, RRType.SOA) };
    });
    const messages: Message[] = [...disabled];
    const supporting: string[] = [];
    for (const [server, { response, plain }] of answers) {
      const ns = server.toString();
      if (!response) {
        messages.push({ tag: plain ? 'BREAKS_ON_EDNS' : 'NO_RESPONSE', args: { ns, domain } });
        continue;
      }
      const noerror = headerRcode(response) === Rcode.NOERROR;
      const version = response.edns?.version ?? 0;
      if (headerRcode(response) === Rcode.FORMERR && !response.edns) messages.push({ tag: 'NO_EDNS_SUPPORT', args: { ns } });
      else if (noerror && extendedRcode(response) === 0 && response.answer.some((rr) => rr.type === RRType.SOA) && version === 0)
        supporting.push(ns);
      else if (noerror && !response.edns) messages.push({ tag: 'EDNS_RESPONSE_WITHOUT_EDNS', args: { ns, domain } });
      else if (noerror && version !== 0) messages.push({ tag: 'EDNS_VERSION_ERROR', args: { ns, domain } });
      else messages.push({ tag: 'NS_ERROR', args: { ns } });
    }
    if (supporting.length > 0 && messages.length === disabled.length)
      messages.push({ tag: 'EDNS0_SUPPORT', args: { ns_list: supporting.join(';') } });
    return messages;
  },
};

export const nameserver03: TestCase = {
  id: 'Nameserver03',
  afterEarlierModules: true,
  spec: `${specs}/nameserver03.md`,
  tags: ['AXFR_FAILURE', 'AXFR_AVAILABLE', ...familyTags],
  async run(context) {
    const { servers, disabled } = await serversToAsk(context, 'AXFR');
    const starts = await perServer(servers, (server) => server.transferStart(context.zone.name));
    const messages: Message[] = [...disabled];
    for (const [server, start] of starts) {
      const ns = server.toString();
      // Not asked because the server is silent over TCP: a transfer would have failed too.
      if (!start || !['complete', 'stopped'].includes(start.outcome)) messages.push({ tag: 'AXFR_FAILURE', args: { ns } });
      else if (start.firstRecord?.type === RRType.SOA) messages.push({ tag: 'AXFR_AVAILABLE', args: { ns } });
    }
    return messages;
  },
};

export const nameserver04: TestCase = {
  id: 'Nameserver04',
  afterEarlierModules: true,
  spec: `${specs}/nameserver04.md`,
  tags: ['DIFFERENT_SOURCE_IP', 'SAME_SOURCE_IP', ...familyTags],
  async run(context) {
    const { zone } = context;
    const { servers, disabled } = await serversToAsk(context, 'SOA');
    const answers = await perServer(servers, (server) => server.query(zone.name, RRType.SOA));
    const messages: Message[] = [...disabled];
    for (const [server, response] of answers) {
      const source = response && server.answeredFrom(response);
      if (source && !sameIpAddress(source, server.address))
        messages.push({ tag: 'DIFFERENT_SOURCE_IP', args: { ns: server.toString(), source } });
    }
    if (servers.length > 0 && messages.length === disabled.length)
      messages.push({ tag: 'SAME_SOURCE_IP', args: { names: servers.map((s) => s.toString()).join(',') } });
    return messages;
  },
};

export const nameserver05: TestCase = {
  id: 'Nameserver05',
  afterEarlierModules: true,
  spec: `${specs}/nameserver05.md`,
  tags: [
    'AAAA_BAD_RDATA',
    'AAAA_QUERY_DROPPED',
    'AAAA_UNEXPECTED_RCODE',
    'AAAA_WELL_PROCESSED',
    'A_UNEXPECTED_RCODE',
    'NO_RESPONSE',
    ...familyTags,
  ],
  async run(context) {
    const { zone } = context;
    const { servers, disabled } = await serversToAsk(context, 'A');
    const udp: QueryFlags = { tcp: false };
    const answers = await perServer(servers, async (server) => {
      const a = await server.query(zone.name, RRType.A, udp);
      return { a, aaaa: a && headerRcode(a) === Rcode.NOERROR ? await server.query(zone.name, RRType.AAAA, udp) : undefined };
    });
    const messages: Message[] = [...disabled];
    let issues = 0;
    let wellFormed = 0;
    for (const [server, { a, aaaa }] of answers) {
      const ns = server.toString();
      if (!a) messages.push({ tag: 'NO_RESPONSE', args: { ns, domain: zone.nameText } });
      else if (headerRcode(a) !== Rcode.NOERROR) messages.push({ tag: 'A_UNEXPECTED_RCODE', args: { ns, rcode: headerRcodeName(a) } });
      else if (!aaaa) {
        messages.push({ tag: 'AAAA_QUERY_DROPPED', args: { ns } });
        issues++;
      } else if (headerRcode(aaaa) !== Rcode.NOERROR) {
        messages.push({ tag: 'AAAA_UNEXPECTED_RCODE', args: { ns, rcode: headerRcodeName(aaaa) } });
        issues++;
      } else {
        for (const rr of aaaa.answer.filter((r) => r.type === RRType.AAAA)) {
          if (rr.raw.length === 16) wellFormed++;
          else {
            messages.push({ tag: 'AAAA_BAD_RDATA', args: { ns, length: rr.raw.length } });
            issues++;
          }
        }
      }
    }
    if (wellFormed > 0 && issues === 0)
      messages.push({ tag: 'AAAA_WELL_PROCESSED', args: { ns_list: servers.map((s) => s.toString()).join(';') } });
    return messages;
  },
};

export const nameserver06: TestCase = {
  id: 'Nameserver06',
  afterEarlierModules: true,
  spec: `${specs}/nameserver06.md`,
  tags: ['CAN_NOT_BE_RESOLVED', 'CAN_BE_RESOLVED', 'NO_RESOLUTION'],
  async run({ zone }) {
    const [delegated, published, servers] = await Promise.all([zone.glueNames(), zone.childNsNames(), zone.allServers()]);
    const withAddress = new Set(servers.map((s) => s.nameText));
    const names = [...new Set([...delegated, ...published].sort(byPresentation).map(displayName))];
    const without = names.filter((name) => !withAddress.has(name));
    if (without.length > 0 && withAddress.size > 0) return [{ tag: 'CAN_NOT_BE_RESOLVED', args: { nsname_list: without.join(';') } }];
    if (withAddress.size === 0) return [{ tag: 'NO_RESOLUTION', args: { names: without.join(',') } }];
    return [{ tag: 'CAN_BE_RESOLVED', args: {} }];
  },
};

export const nameserver07: TestCase = {
  id: 'Nameserver07',
  afterEarlierModules: true,
  spec: `${specs}/nameserver07.md`,
  tags: ['UPWARD_REFERRAL_IRRELEVANT', 'UPWARD_REFERRAL', 'NO_UPWARD_REFERRAL', ...familyTags],
  async run(context) {
    if (context.zone.name.isRoot) return [{ tag: 'UPWARD_REFERRAL_IRRELEVANT', args: {} }];
    const { servers, disabled } = await serversToAsk(context, 'NS');
    const answers = await perServer(servers, (server) => server.query(Name.root, RRType.NS));
    const messages: Message[] = [...disabled];
    for (const [server, response] of answers) {
      if (response?.authority.some((rr) => rr.type === RRType.NS))
        messages.push({ tag: 'UPWARD_REFERRAL', args: { ns: server.toString() } });
    }
    if (servers.length > 0 && messages.length === disabled.length) {
      messages.push({
        tag: 'NO_UPWARD_REFERRAL',
        args: { nsname_list: [...new Set(servers.map((s) => s.nameText))].sort(byText).join(';') },
      });
    }
    return messages;
  },
};

/** www in the zone, without the final dot, as Nameserver08 and 09 ask it. */
const wwwName = (context: TestContext): string => (context.zone.name.isRoot ? 'www' : `www.${context.zone.nameText}`);

export const nameserver08: TestCase = {
  id: 'Nameserver08',
  afterEarlierModules: true,
  spec: `${specs}/nameserver08.md`,
  tags: ['QNAME_CASE_INSENSITIVE', 'QNAME_CASE_SENSITIVE', ...familyTags],
  async run(context) {
    const original = wwwName(context);
    const domain = scrambledCase(original, [original]);
    const { servers, disabled } = await serversToAsk(context, 'SOA');
    const answers = await perServer(servers, (server) => server.query(Name.fromString(`${domain}.`), RRType.SOA));
    const messages: Message[] = [...disabled];
    for (const [server, response] of answers) {
      const question = response?.question[0];
      if (!question) continue;
      // Byte for byte: a server that changes the case of the question's name is case insensitive here.
      const kept = question.name.toString().replace(/\.$/, '') === domain;
      messages.push({ tag: kept ? 'QNAME_CASE_SENSITIVE' : 'QNAME_CASE_INSENSITIVE', args: { ns: server.toString(), domain } });
    }
    return messages;
  },
};

/** The answer section as lower-case text in a fixed order, for comparing two answers. */
const answerText = (response: DnsMessage): string =>
  response.answer
    .map((rr) => recordToString(rr).toLowerCase())
    .sort()
    .join('\n');

export const nameserver09: TestCase = {
  id: 'Nameserver09',
  afterEarlierModules: true,
  spec: `${specs}/nameserver09.md`,
  tags: [
    'CASE_QUERY_SAME_ANSWER',
    'CASE_QUERY_DIFFERENT_ANSWER',
    'CASE_QUERY_SAME_RC',
    'CASE_QUERY_DIFFERENT_RC',
    'CASE_QUERY_NO_ANSWER',
    'CASE_QUERIES_RESULTS_OK',
    'CASE_QUERIES_RESULTS_DIFFER',
    ...familyTags,
  ],
  async run(context) {
    const original = wwwName(context);
    const query1 = scrambledCase(original, [original]);
    const query2 = scrambledCase(original, [original, query1]);
    const type = 'SOA';
    const { servers, disabled } = await serversToAsk(context, type);
    const answers = await perServer(servers, (server) =>
      Promise.all([query1, query2].map((name) => server.query(Name.fromString(`${name}.`), RRType.SOA))),
    );
    const messages: Message[] = [...disabled];
    let allMatch = true;
    for (const [server, [p1, p2]] of answers) {
      const base = { ns: server.toString(), type };
      if (p1 && p1.answer.length > 0) {
        const same = p2 !== undefined && p2.answer.length > 0 && answerText(p1) === answerText(p2);
        if (!same) allMatch = false;
        messages.push({ tag: same ? 'CASE_QUERY_SAME_ANSWER' : 'CASE_QUERY_DIFFERENT_ANSWER', args: { ...base, query1, query2 } });
      } else if (p1 && p2) {
        if (headerRcode(p1) === headerRcode(p2))
          messages.push({ tag: 'CASE_QUERY_SAME_RC', args: { ...base, query1, query2, rcode: headerRcodeName(p1) } });
        else {
          allMatch = false;
          messages.push({
            tag: 'CASE_QUERY_DIFFERENT_RC',
            args: { ...base, query1, query2, rcode1: headerRcodeName(p1), rcode2: headerRcodeName(p2) },
          });
        }
      } else if (p1 || p2) {
        allMatch = false;
        messages.push({ tag: 'CASE_QUERY_NO_ANSWER', args: { ...base, domain: p1 ? query1 : query2 } });
      }
    }
    messages.push({ tag: allMatch ? 'CASE_QUERIES_RESULTS_OK' : 'CASE_QUERIES_RESULTS_DIFFER', args: { type, domain: original } });
    return messages;
  },
};

export const nameserver10: TestCase = {
  id: 'Nameserver10',
  afterEarlierModules: true,
  spec: `${specs}/nameserver10.md`,
  tags: ['N10_NO_RESPONSE_EDNS1_QUERY', 'N10_UNEXPECTED_RCODE', 'N10_EDNS_RESPONSE_ERROR', ...familyTags],
  async run(context) {
    const { zone } = context;
    const { servers, disabled } = await serversToAsk(context, 'SOA');
    const answers = await perServer(servers, async (server) => {
      const first = await server.query(zone.name, RRType.SOA, edns512);
      if (!first || headerRcode(first) !== Rcode.NOERROR) return undefined;
      return { first, second: await server.query(zone.name, RRType.SOA, { edns: { version: 1, udpSize: 512 } }) };
    });
    const silent: string[] = [];
    const unexpected = new Map<string, string[]>();
    const wrong: string[] = [];
    for (const [server, pair] of answers) {
      if (!pair) continue;
      const { first, second } = pair;
      if (!second) silent.push(server.address);
      else if (headerRcode(second) !== Rcode.NOERROR && extendedRcode(second) !== 1) {
        // The reference files these under the rcode of the first answer (NOERROR), not the second's.
        const rcode = headerRcodeName(first);
        unexpected.set(rcode, [...(unexpected.get(rcode) ?? []), server.address]);
      } else if (!(
        headerRcode(second) === Rcode.NOERROR &&
        extendedRcode(second) === 1 &&
        (second.edns?.version ?? 0) === 0 &&
        second.answer.length === 0
      )) {
        wrong.push(server.address);
      }
    }
    const messages: Message[] = [...disabled];
    if (silent.length > 0) messages.push({ tag: 'N10_NO_RESPONSE_EDNS1_QUERY', args: { ns_ip_list: ipList(silent) } });
    for (const [rcode, list] of unexpected) messages.push({ tag: 'N10_UNEXPECTED_RCODE', args: { rcode, ns_ip_list: ipList(list) } });
    if (wrong.length > 0) messages.push({ tag: 'N10_EDNS_RESPONSE_ERROR', args: { ns_ip_list: ipList(wrong) } });
    return messages;
  },
};

export const nameserver11: TestCase = {
  id: 'Nameserver11',
  afterEarlierModules: true,
  spec: `${specs}/nameserver11.md`,
  tags: [
    'N11_NO_EDNS',
    'N11_NO_RESPONSE',
    'N11_RETURNS_UNKNOWN_OPTION_CODE',
    'N11_UNEXPECTED_ANSWER_SECTION',
    'N11_UNEXPECTED_RCODE',
    'N11_UNSET_AA',
    ...familyTags,
  ],
  async run(context) {
    const { zone } = context;
    const { servers, disabled } = await serversToAsk(context, 'SOA');
    const soaIn = (m: DnsMessage): boolean => recordsFor(m, RRType.SOA, zone.name, ['answer']).length > 0;
    const answers = await perServer(servers, async (server) => {
      const first = await server.query(zone.name, RRType.SOA, edns512);
      // Only servers that answer a plain EDNS query well are tried with the unknown option.
      if (!first?.edns || headerRcode(first) !== Rcode.NOERROR || !first.aa || !soaIn(first)) return { asked: false as const };
      const options = [{ code: unassignedOptionCode, data: new Uint8Array(0) }];
      return { asked: true as const, response: await server.query(zone.name, RRType.SOA, { edns: { udpSize: 512, options } }) };
    });
    const lists = {
      N11_NO_RESPONSE: [] as string[],
      N11_NO_EDNS: [] as string[],
      N11_UNEXPECTED_ANSWER_SECTION: [] as string[],
      N11_UNSET_AA: [] as string[],
      N11_RETURNS_UNKNOWN_OPTION_CODE: [] as string[],
    };
    const unexpected = new Map<string, string[]>();
    for (const [server, outcome] of answers) {
      if (!outcome.asked) continue;
      const { response } = outcome;
      const ip = server.address;
      if (!response) lists.N11_NO_RESPONSE.push(ip);
      else if (headerRcode(response) !== Rcode.NOERROR)
        unexpected.set(headerRcodeName(response), [...(unexpected.get(headerRcodeName(response)) ?? []), ip]);
      else if (!response.edns) lists.N11_NO_EDNS.push(ip);
      else if (!soaIn(response)) lists.N11_UNEXPECTED_ANSWER_SECTION.push(ip);
      else if (!response.aa) lists.N11_UNSET_AA.push(ip);
      else if (response.edns.options.some((o) => o.code === unassignedOptionCode)) lists.N11_RETURNS_UNKNOWN_OPTION_CODE.push(ip);
    }
    const messages: Message[] = [...disabled];
    if (lists.N11_NO_RESPONSE.length > 0) messages.push({ tag: 'N11_NO_RESPONSE', args: { ns_ip_list: ipList(lists.N11_NO_RESPONSE) } });
    for (const [rcode, list] of unexpected) messages.push({ tag: 'N11_UNEXPECTED_RCODE', args: { rcode, ns_ip_list: ipList(list) } });
    for (const tag of ['N11_NO_EDNS', 'N11_UNEXPECTED_ANSWER_SECTION', 'N11_UNSET_AA', 'N11_RETURNS_UNKNOWN_OPTION_CODE'] as const) {
      if (lists[tag].length > 0) messages.push({ tag, args: { ns_ip_list: ipList(lists[tag]) } });
    }
    return messages;
  },
};

export const nameserver12: TestCase = {
  id: 'Nameserver12',
  afterEarlierModules: true,
  spec: `${specs}/nameserver12.md`,
  tags: ['NO_RESPONSE', 'NO_EDNS_SUPPORT', 'Z_FLAGS_NOTCLEAR', 'NS_ERROR', ...familyTags],
  async run(context) {
    const { zone } = context;
    const { servers, disabled } = await serversToAsk(context, 'SOA');
    // The two lowest of the EDNS flags' unassigned Z bits set.
    const answers = await perServer(servers, (server) => server.query(zone.name, RRType.SOA, { edns: { udpSize: 512, flags: 3 } }));
    const messages: Message[] = [...disabled];
    for (const [server, response] of answers) {
      const ns = server.toString();
      if (!response) {
        messages.push({ tag: 'NO_RESPONSE', args: { ns, domain: zone.nameText } });
        continue;
      }
      const z = (response.edns?.flags ?? 0) & 0x7fff;
      if (headerRcode(response) === Rcode.FORMERR && extendedRcode(response) === 0) messages.push({ tag: 'NO_EDNS_SUPPORT', args: { ns } });
      else if (z !== 0) messages.push({ tag: 'Z_FLAGS_NOTCLEAR', args: { ns } });
      else if (!(
        headerRcode(response) === Rcode.NOERROR &&
        extendedRcode(response) === 0 &&
        (response.edns?.version ?? 0) === 0 &&
        response.answer.some((rr) => rr.type === RRType.SOA)
      )) {
        messages.push({ tag: 'NS_ERROR', args: { ns } });
      }
    }
    return messages;
  },
};

export const nameserver13: TestCase = {
  id: 'Nameserver13',
  afterEarlierModules: true,
  spec: `${specs}/nameserver13.md`,
  tags: ['NO_RESPONSE', 'NO_EDNS_SUPPORT', 'NS_ERROR', 'MISSING_OPT_IN_TRUNCATED', ...familyTags],
  async run(context) {
    const { zone } = context;
    const { servers, disabled } = await serversToAsk(context, 'DNSKEY');
    // DNSKEY with DO and a 512-byte payload, over UDP and without TCP fallback: a large answer comes
    // back truncated, and must still carry its OPT record.
    const flags: QueryFlags = { dnssec: true, edns: { udpSize: 512 }, tcp: false, fallback: false };
    const answers = await perServer(servers, (server) => server.query(zone.name, RRType.DNSKEY, flags));
    const messages: Message[] = [...disabled];
    for (const [server, response] of answers) {
      const ns = server.toString();
      if (!response) messages.push({ tag: 'NO_RESPONSE', args: { ns, domain: zone.nameText } });
      else if (headerRcode(response) === Rcode.FORMERR && extendedRcode(response) === 0)
        messages.push({ tag: 'NO_EDNS_SUPPORT', args: { ns } });
      else if (response.tc && !response.edns) messages.push({ tag: 'MISSING_OPT_IN_TRUNCATED', args: { ns } });
      else if (!(headerRcode(response) === Rcode.NOERROR && extendedRcode(response) === 0 && (response.edns?.version ?? 0) === 0))
        messages.push({ tag: 'NS_ERROR', args: { ns } });
    }
    return messages;
  },
};

/** The CH class names a server may answer with its software and version (Nameserver15). */
const versionQueryNames = ['version.bind', 'version.server'] as const;

/** TXT data as the reference shows it: bytes outside printable ASCII as \DDD, a backslash doubled. */
function printableText(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) {
    if (byte === 0x5c) text += '\\\\';
    else if (byte >= 0x20 && byte <= 0x7e) text += String.fromCharCode(byte);
    else text += `\\${String(byte).padStart(3, '0')}`;
  }
  return text;
}

const concatenated = (strings: Uint8Array[]): Uint8Array => Buffer.concat(strings);

export const nameserver15: TestCase = {
  id: 'Nameserver15',
  afterEarlierModules: true,
  spec: `${specs}/nameserver15.md`,
  tags: ['N15_ERROR_ON_VERSION_QUERY', 'N15_NO_VERSION_REVEALED', 'N15_SOFTWARE_VERSION', 'N15_WRONG_CLASS', ...familyTags],
  async run(context) {
    const { zone } = context;
    // One message per server whose family is off, naming both query types in one argument.
    const { servers, disabled } = await serversToAsk(context, 'SOA TXT');
    const answers = await perServer(servers, async (server) => {
      // Only a server that answers the zone's SOA at all is asked for its version.
      if (!(await server.query(zone.name, RRType.SOA))) return undefined;
      return Promise.all(versionQueryNames.map((name) => server.query(Name.fromString(`${name}.`), RRType.TXT, { qclass: RRClass.CH })));
    });
    // version string -> query name -> servers (once per record, as the reference counts them)
    const versions = new Map<string, Map<string, string[]>>();
    const failed = new Map<string, string[]>();
    const silentOnVersion = new Set<string>();
    const wrongClass: string[] = [];
    for (const [server, responses] of answers) {
      if (!responses) continue;
      const ns = server.toString();
      silentOnVersion.add(ns);
      responses.forEach((response, i) => {
        const queryName = versionQueryNames[i];
        if (!response || headerRcode(response) === Rcode.SERVFAIL) {
          failed.set(queryName, [...(failed.get(queryName) ?? []), ns]);
          return;
        }
        for (const rr of recordsFor(response, RRType.TXT, Name.fromString(`${queryName}.`), ['answer'])) {
          if (rr.class !== RRClass.CH) wrongClass.push(ns);
          if (!recordIs(rr, RRType.TXT)) continue;
          const text = printableText(concatenated(rr.rdata.strings)).trim();
          if (text === '') continue;
          const byName = versions.get(text) ?? new Map<string, string[]>();
          versions.set(text, byName);
          byName.set(queryName, [...(byName.get(queryName) ?? []), ns]);
          silentOnVersion.delete(ns);
        }
      });
    }
    const list = (names: Iterable<string>): string => [...names].sort(byText).join(';');
    const messages: Message[] = [...disabled];
    for (const [string, byName] of [...versions].sort(([a], [b]) => byText(a, b))) {
      for (const queryName of versionQueryNames) {
        const nsList = byName.get(queryName);
        if (nsList) messages.push({ tag: 'N15_SOFTWARE_VERSION', args: { string, query_name: queryName, ns_list: list(nsList) } });
      }
    }
    for (const queryName of versionQueryNames) {
      const nsList = failed.get(queryName);
      if (nsList) messages.push({ tag: 'N15_ERROR_ON_VERSION_QUERY', args: { query_name: queryName, ns_list: list(nsList) } });
    }
    if (silentOnVersion.size > 0) messages.push({ tag: 'N15_NO_VERSION_REVEALED', args: { ns_list: list(silentOnVersion) } });
    if (wrongClass.length > 0) messages.push({ tag: 'N15_WRONG_CLASS', args: { ns_list: list(wrongClass) } });
    return messages;
  },
};

export const nameserver: TestModule = {
  name: 'NAMESERVER',
  inOrder: true,
  testCases: [
    nameserver01,
    nameserver02,
    nameserver03,
    nameserver04,
    nameserver05,
    nameserver06,
    nameserver07,
    nameserver08,
    nameserver09,
    nameserver10,
    nameserver11,
    nameserver12,
    nameserver13,
    nameserver15,
  ],
};
