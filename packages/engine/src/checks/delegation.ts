// Delegation: is the zone delegated to enough, distinct, authoritative name servers, and do the parent
// and the zone agree on them? Tags, arguments and levels follow the reference engine 9.0
// (specifications: docs/public/specifications/tests/Delegation-TP/ in zonemaster/zonemaster).
import { RRType, type Name } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { referralSize, type ReferralGlue } from '../net/referral-size.ts';
import { byText, displayName, rcodeName, recordsOfType, responseKind } from '../net/response.ts';
import { byZoneCopy } from '../zone/server-sets.ts';
import type { Zone } from '../zone/tested-zone.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Delegation-TP';
const minimumNameservers = 2;
// RFC 1035's limit for a UDP message without EDNS.
const udpPayloadLimit = 512;
const familyTags = ['IPV4_DISABLED', 'IPV6_DISABLED'];

const uniqueSorted = (values: Iterable<string>): string[] => [...new Set(values)].sort(byText);
const names = (list: readonly Name[]): string[] => list.map(displayName);

/** The IPV4_/IPV6_DISABLED message when the server's family is off; true when it is. */
function familyOff({ profile }: TestContext, server: Nameserver, rrtype: string, into: Message[]): boolean {
  if (server.family === 4 ? profile.net.ipv4 : profile.net.ipv6) return false;
  into.push({ tag: `IPV${server.family}_DISABLED`, args: { ns: server.toString(), rrtype } });
  return true;
}

/** Delegation servers, then the zone's own, keeping only the first address of each name (as the reference asks). */
function firstAddressPerName(servers: readonly Nameserver[]): Nameserver[] {
  const seen = new Set<string>();
  return servers.filter((server) => !seen.has(server.nameText) && seen.add(server.nameText));
}

function countMessage(side: 'DEL' | 'CHILD', nsNames: readonly string[]): Message {
  const args = { count: nsNames.length, minimum: minimumNameservers, nsname_list: [...nsNames].sort(byText).join(';') };
  return { tag: nsNames.length >= minimumNameservers ? `ENOUGH_NS_${side}` : `NOT_ENOUGH_NS_${side}`, args };
}

function familyCountMessage(side: 'DEL' | 'CHILD', family: 4 | 6, servers: readonly Nameserver[]): Message {
  const inFamily = servers.filter((server) => server.family === family);
  const count = new Set(inFamily.map((server) => server.nameText)).size;
  const args = {
    count,
    minimum: minimumNameservers,
    ns_list: inFamily
      .map((server) => server.toString())
      .sort()
      .join(';'),
  };
  const outcome = count >= minimumNameservers ? 'ENOUGH' : count > 0 ? 'NOT_ENOUGH' : 'NO';
  return { tag: `${outcome}_IPV${family}_NS_${side}`, args };
}

/** One message per address that several names share, or the all-distinct tag when none do. */
function sharedAddresses(servers: readonly Nameserver[], sameTag: string, distinctTag: string): Message[] {
  const namesByAddress = new Map<string, string[]>();
  for (const server of servers) {
    const list = namesByAddress.get(server.address) ?? [];
    if (!list.includes(server.nameText)) list.push(server.nameText);
    namesByAddress.set(server.address, list);
  }
  const shared = [...namesByAddress.keys()].sort(byText).flatMap((address) => {
    const list = namesByAddress.get(address)!;
    return list.length > 1 ? [{ tag: sameTag, args: { nsname_list: list.join(';'), ns_ip: address } }] : [];
  });
  return servers.length > 0 && shared.length === 0 ? [{ tag: distinctTag, args: {} }] : shared;
}

/** Delegation01: at least two name servers, at the parent and in the zone, and per IP family. */
export const delegation01: TestCase = {
  id: 'Delegation01',
  spec: `${specs}/delegation01.md`,
  tags: [
    'ENOUGH_NS_DEL',
    'NOT_ENOUGH_NS_DEL',
    'ENOUGH_NS_CHILD',
    'NOT_ENOUGH_NS_CHILD',
    ...(['DEL', 'CHILD'] as const).flatMap((side) =>
      [4, 6].flatMap((f) => [`ENOUGH_IPV${f}_NS_${side}`, `NOT_ENOUGH_IPV${f}_NS_${side}`, `NO_IPV${f}_NS_${side}`]),
    ),
  ],
  async run({ zone }) {
    const [glueNames, childNames, glue, ns] = await Promise.all([zone.glueNames(), zone.childNsNames(), zone.glue(), zone.ns()]);
    return [
      countMessage('DEL', names(glueNames)),
      countMessage('CHILD', names(childNames)),
      familyCountMessage('CHILD', 4, ns),
      familyCountMessage('CHILD', 6, ns),
      familyCountMessage('DEL', 4, glue),
      familyCountMessage('DEL', 6, glue),
    ];
  },
};

/** Delegation02: no address is shared by two name server names. */
export const delegation02: TestCase = {
  id: 'Delegation02',
  spec: `${specs}/delegation02.md`,
  tags: ['DEL_NS_SAME_IP', 'DEL_DISTINCT_NS_IP', 'CHILD_NS_SAME_IP', 'CHILD_DISTINCT_NS_IP', 'SAME_IP_ADDRESS', 'DISTINCT_IP_ADDRESS'],
  async run({ zone }) {
    const [glue, ns] = await Promise.all([zone.glue(), zone.ns()]);
    return [
      ...sharedAddresses(glue, 'DEL_NS_SAME_IP', 'DEL_DISTINCT_NS_IP'),
      ...sharedAddresses(ns, 'CHILD_NS_SAME_IP', 'CHILD_DISTINCT_NS_IP'),
      ...sharedAddresses([...glue, ...ns], 'SAME_IP_ADDRESS', 'DISTINCT_IP_ADDRESS'),
    ];
  },
};

/** Delegation03: the referral for the longest name in the zone fits a 512-byte UDP answer. */
export const delegation03: TestCase = {
  id: 'Delegation03',
  spec: `${specs}/delegation03.md`,
  tags: ['REFERRAL_SIZE_OK', 'REFERRAL_SIZE_TOO_LARGE'],
  async run({ zone }) {
    const [glueNames, glue, parent] = await Promise.all([zone.glueNames(), zone.glue(), zone.parent()]);
    // One address per family goes along, and only when every server of that family is in the parent's bailiwick.
    const addresses: ReferralGlue[] = ([4, 6] as const).flatMap((family) => {
      const inFamily = glue.filter((server) => server.family === family);
      const allInBailiwick = parent !== undefined && inFamily.every((server) => server.name.isSubdomainOf(parent.name));
      return inFamily.length > 0 && allInBailiwick ? [{ name: inFamily[0].name, address: inFamily[0].address, family }] : [];
    });
    const size = referralSize(zone.name, glueNames, addresses);
    return [{ tag: size > udpPayloadLimit ? 'REFERRAL_SIZE_TOO_LARGE' : 'REFERRAL_SIZE_OK', args: { size } }];
  },
};

/** Delegation04: every name server answers for the zone's SOA with the AA bit, over UDP and TCP. */
export const delegation04: TestCase = {
  id: 'Delegation04',
  spec: `${specs}/delegation04.md`,
  tags: ['IS_NOT_AUTHORITATIVE', 'ARE_AUTHORITATIVE', ...familyTags],
  async run(context) {
    const { zone } = context;
    const [glue, ns] = await Promise.all([zone.glue(), zone.ns()]);
    const messages: Message[] = [];
    const servers = firstAddressPerName([...glue, ...ns].filter((server) => !familyOff(context, server, 'SOA', messages)));
    const answers = await Promise.all(
      servers.flatMap((server) =>
        [false, true].map(async (tcp) => ({ server, tcp, response: await server.query(zone.name, RRType.SOA, { tcp }) })),
      ),
    );
    const authoritative: string[] = [];
    for (const { server, tcp, response } of answers) {
      if (!response) continue;
      if (response.aa) authoritative.push(server.nameText);
      else messages.push({ tag: 'IS_NOT_AUTHORITATIVE', args: { ns: server.toString(), proto: tcp ? 'TCP' : 'UDP' } });
    }
    if (glue.length + ns.length > 0 && messages.length === 0 && authoritative.length > 0) {
      messages.push({ tag: 'ARE_AUTHORITATIVE', args: { nsname_list: uniqueSorted(authoritative).join(';') } });
    }
    return messages;
  },
};

/** What asking a server for an in-zone NS name's A record without recursion shows: 'rcode NAME' when not NOERROR. */
type AliasOutcome = 'no-response' | 'cname' | 'none' | `rcode ${string}`;

async function aliasOutcome(server: Nameserver, nsName: Name): Promise<AliasOutcome> {
  const response = await server.query(nsName, RRType.A, { rd: false });
  if (!response) return 'no-response';
  if (response.rcode !== 0) return `rcode ${rcodeName(response.rcode)}`;
  if (recordsOfType(response, RRType.CNAME, ['answer']).length > 0) return 'cname';
  if (responseKind(response) !== 'referral') return 'none';
  const recursive = await server.query(nsName, RRType.A, { rd: true });
  return recursive && recordsOfType(recursive, RRType.CNAME, ['answer']).length > 0 ? 'cname' : 'none';
}

/**
 * Each server's outcome for each name, asking each copy of the zone (see byZoneCopy) for every name
 * once: its other servers are asked the first name only, and every name when that answer differs.
 * The reference asks every server for every name (88 names at 107 addresses: 9,400 queries).
 */
async function sharedOutcomes(
  zone: Zone,
  servers: readonly Nameserver[],
  names: readonly Name[],
): Promise<(server: Nameserver, nsName: Name) => Promise<AliasOutcome>> {
  const sample = names[0];
  if (sample === undefined || servers.length === 0) return aliasOutcome;
  const representative = new Map<string, Promise<Nameserver>>();
  for (const copy of await byZoneCopy(zone, servers)) {
    const first = copy[0];
    for (const server of copy) {
      const same =
        server === first
          ? Promise.resolve(server)
          : Promise.all([aliasOutcome(server, sample), aliasOutcome(first, sample)]).then(([mine, theirs]) =>
              mine === theirs ? first : server,
            );
      representative.set(server.toString(), same);
    }
  }
  return async (server, nsName) => aliasOutcome((await representative.get(server.toString())) ?? server, nsName);
}

/** Delegation05: no NS name is an alias (CNAME). */
export const delegation05: TestCase = {
  id: 'Delegation05',
  spec: `${specs}/delegation05.md`,
  tags: ['NO_NS_CNAME', 'NS_IS_CNAME', 'NO_RESPONSE', 'UNEXPECTED_RCODE', ...familyTags],
  async run(context) {
    const { zone } = context;
    const [glueNames, childNames, servers] = await Promise.all([zone.glueNames(), zone.childNsNames(), zone.allServers()]);
    const nsNames = [...new Map([...glueNames, ...childNames].map((n) => [displayName(n), n])).entries()]
      .sort(([a], [b]) => byText(a, b))
      .map(([, n]) => n);
    const isCname = (nsName: Name): Message => ({ tag: 'NS_IS_CNAME', args: { nsname: displayName(nsName) } });
    const inZoneNames = nsNames.filter((nsName) => nsName.isSubdomainOf(zone.name));
    const outcomeOf = await sharedOutcomes(
      zone,
      servers.filter((server) => (server.family === 4 ? context.profile.net.ipv4 : context.profile.net.ipv6)),
      inZoneNames,
    );
    const perName = await Promise.all(
      nsNames.map(async (nsName): Promise<Message[]> => {
        if (!nsName.isSubdomainOf(zone.name)) {
          const resolution = await zone.resolve(nsName, RRType.A);
          const aliased =
            !resolution.canonical.equals(nsName) ||
            (resolution.message !== undefined && recordsOfType(resolution.message, RRType.CNAME, ['answer']).length > 0);
          return aliased ? [isCname(nsName)] : [];
        }
        const messages: Message[] = [];
        const asked = servers.filter((server) => !familyOff(context, server, 'A', messages));
        const outcomes = await Promise.all(
          asked.map(async (server): Promise<Message[]> => {
            const outcome = await outcomeOf(server, nsName);
            const about = { ns: server.toString(), query_name: displayName(nsName), rrtype: 'A' };
            if (outcome === 'no-response') return [{ tag: 'NO_RESPONSE', args: about }];
            if (outcome === 'cname') return [isCname(nsName)];
            if (outcome === 'none') return [];
            return [{ tag: 'UNEXPECTED_RCODE', args: { ...about, rcode: outcome.slice('rcode '.length) } }];
          }),
        );
        return [...messages, ...outcomes.flat()];
      }),
    );
    const messages = perName.flat();
    if (!messages.some((m) => m.tag === 'NS_IS_CNAME')) messages.push({ tag: 'NO_NS_CNAME', args: {} });
    return messages;
  },
};

/** Delegation06: every name server has an SOA record for the zone. */
export const delegation06: TestCase = {
  id: 'Delegation06',
  spec: `${specs}/delegation06.md`,
  tags: ['SOA_EXISTS', 'SOA_NOT_EXISTS', ...familyTags],
  async run(context) {
    const { zone } = context;
    const [glue, ns] = await Promise.all([zone.glue(), zone.ns()]);
    const messages: Message[] = [];
    const servers = firstAddressPerName([...glue, ...ns].filter((server) => !familyOff(context, server, 'SOA', messages)));
    const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.SOA)));
    servers.forEach((server, i) => {
      const response = responses[i];
      if (response && response.rcode === 0 && recordsOfType(response, RRType.SOA, ['answer']).length === 0) {
        messages.push({ tag: 'SOA_NOT_EXISTS', args: { ns: server.toString() } });
      }
    });
    if (glue.length + ns.length > 0 && messages.length === 0) messages.push({ tag: 'SOA_EXISTS', args: {} });
    return messages;
  },
};

/** Delegation07: the parent's NS names and the zone's own are the same set. */
export const delegation07: TestCase = {
  id: 'Delegation07',
  spec: `${specs}/delegation07.md`,
  tags: ['NAMES_MATCH', 'EXTRA_NAME_PARENT', 'EXTRA_NAME_CHILD', 'TOTAL_NAME_MISMATCH'],
  async run({ zone }) {
    const [parentNames, childNames] = (await Promise.all([zone.glueNames(), zone.childNsNames()])).map((list) => new Set(names(list)));
    const same = uniqueSorted([...parentNames].filter((n) => childNames.has(n)));
    const parentOnly = uniqueSorted([...parentNames].filter((n) => !childNames.has(n)));
    const childOnly = uniqueSorted([...childNames].filter((n) => !parentNames.has(n)));
    const messages: Message[] = [];
    if (parentOnly.length > 0) messages.push({ tag: 'EXTRA_NAME_PARENT', args: { extra: parentOnly.join(';') } });
    if (childOnly.length > 0) messages.push({ tag: 'EXTRA_NAME_CHILD', args: { extra: childOnly.join(';') } });
    if (parentOnly.length === 0 && childOnly.length === 0) messages.push({ tag: 'NAMES_MATCH', args: { names: same.join(';') } });
    if (same.length === 0) messages.push({ tag: 'TOTAL_NAME_MISMATCH', args: { glue: parentOnly.join(';'), child: childOnly.join(';') } });
    return messages;
  },
};

export const delegation: TestModule = {
  name: 'DELEGATION',
  testCases: [delegation01, delegation02, delegation03, delegation04, delegation05, delegation06, delegation07],
};
