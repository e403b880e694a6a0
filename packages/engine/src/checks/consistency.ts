// Consistency: do all name servers serve the same zone (SOA fields, NS set), and do the parent's glue
// addresses agree with the zone's? Tags, arguments and levels follow the reference engine 9.0
// (specifications: docs/public/specifications/tests/Consistency-TP/ in zonemaster/zonemaster).
import { Name, RRType, Rcode, recordIs, type Message as DnsMessage, type ResourceRecord, type SoaData } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { byZoneCopy, onePerAddress, serverSets } from '../zone/server-sets.ts';
import type { Zone } from '../zone/tested-zone.ts';
import { byText, displayName, recordsFor, responseKind } from '../net/response.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Consistency-TP';
// Serials may differ by this much before SOA_SERIAL_VARIATION (the reference allows none).
const serialMaxVariation = 0;
const familyTags = ['IPV4_DISABLED', 'IPV6_DISABLED'];
// The reference runs Consistency after Connectivity, whose SOA-then-NS order decides which servers
// are asked NS at all; our SOA and NS queries to the same servers must not answer for it first.
const afterConnectivity = ['Connectivity01', 'Connectivity02'];

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
async function groupServers(
  context: TestContext,
  qtype: number,
  missingTag: string,
  keyOf: (records: ResourceRecord[]) => string,
): Promise<Grouped> {
  const { zone } = context;
  const [glue, ns] = await Promise.all([zone.glue(), zone.ns()]);
  const servers = [...glue, ...ns];
  const rrtype = qtype === RRType.SOA ? 'SOA' : 'NS';
  const responses = await Promise.all(
    servers.map((server) => (familyOn(context, server) ? server.query(zone.name, qtype) : Promise.resolve(undefined))),
  );
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
function soaFieldTestCase(
  id: string,
  oneTag: string,
  multipleTag: string,
  eachTag: string,
  valueOf: (soa: SoaData) => Record<string, string | number>,
): TestCase {
  return {
    id,
    spec: `${specs}/${id.toLowerCase()}.md`,
    tags: [oneTag, multipleTag, eachTag, ...soaTags],
    after: afterConnectivity,
    async run(context) {
      const { groups, messages } = await groupServers(context, RRType.SOA, 'NO_RESPONSE_SOA_QUERY', (records) =>
        JSON.stringify(valueOf(soaOf(records))),
      );
      const values = [...groups.keys()].sort(byText);
      if (values.length === 1) {
        messages.push({ tag: oneTag, args: JSON.parse(values[0]) as Record<string, string | number> });
      } else if (values.length > 1) {
        messages.push({ tag: multipleTag, args: { count: values.length } });
        for (const value of values)
          messages.push({
            tag: eachTag,
            args: { ...(JSON.parse(value) as Record<string, string | number>), ns_list: groups.get(value)!.sort(byText).join(';') },
          });
      }
      return messages;
    },
  };
}

/** Consistency01: every server serves the same SOA serial. */
export const consistency01: TestCase = {
  id: 'Consistency01',
  spec: `${specs}/consistency01.md`,
  after: afterConnectivity,
  tags: ['ONE_SOA_SERIAL', 'MULTIPLE_SOA_SERIALS', 'SOA_SERIAL', 'SOA_SERIAL_VARIATION', ...soaTags],
  async run(context) {
    const { groups, messages } = await groupServers(context, RRType.SOA, 'NO_RESPONSE_SOA_QUERY', (records) =>
      String(soaOf(records).serial),
    );
    // Serials as text, sorted as text, as the reference compares them.
    const serials = [...groups.keys()].sort(byText);
    for (const serial of serials)
      messages.push({ tag: 'SOA_SERIAL', args: { serial: Number(serial), ns_list: groups.get(serial)!.sort(byText).join(';') } });
    if (serials.length === 1) {
      messages.push({ tag: 'ONE_SOA_SERIAL', args: { serial: Number(serials[0]) } });
    } else if (serials.length > 1) {
      messages.push({ tag: 'MULTIPLE_SOA_SERIALS', args: { count: serials.length } });
      const [min, max] = [Number(serials[0]), Number(serials.at(-1))];
      if (max - min > serialMaxVariation)
        messages.push({ tag: 'SOA_SERIAL_VARIATION', args: { serial_min: min, serial_max: max, max_variation: serialMaxVariation } });
    }
    return messages;
  },
};

/** A name as the reference's DNS library prints it: only . ; ( ) and backslash escaped, not @ $ or ". */
const referenceText = (name: Name): string =>
  name
    .toLowerCase()
    .toString()
    .replace(/\\([@$"])/g, '$1');

/** Consistency02: every server serves the same SOA RNAME. */
export const consistency02 = soaFieldTestCase('Consistency02', 'ONE_SOA_RNAME', 'MULTIPLE_SOA_RNAMES', 'SOA_RNAME', (soa) => ({
  rname: referenceText(soa.rname),
}));

/** Consistency03: every server serves the same SOA refresh, retry, expire and minimum. */
export const consistency03 = soaFieldTestCase(
  'Consistency03',
  'ONE_SOA_TIME_PARAMETER_SET',
  'MULTIPLE_SOA_TIME_PARAMETER_SET',
  'SOA_TIME_PARAMETER_SET',
  (soa) => ({
    refresh: soa.refresh,
    retry: soa.retry,
    expire: soa.expire,
    minimum: soa.minimum,
  }),
);

/** Consistency06: every server serves the same SOA MNAME. */
export const consistency06 = soaFieldTestCase('Consistency06', 'ONE_SOA_MNAME', 'MULTIPLE_SOA_MNAMES', 'SOA_MNAME', (soa) => ({
  mname: referenceText(soa.mname),
}));

/** Consistency04: every server serves the same NS set. */
export const consistency04: TestCase = {
  id: 'Consistency04',
  spec: `${specs}/consistency04.md`,
  after: afterConnectivity,
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

/**
 * A set of name servers as Consistency05 compares them: per lower-case name, either the bare name
 * (no address known) or its addresses. Items read as the reference prints them: 'name' or 'name/ip'.
 */
class ServerSet {
  readonly #byName = new Map<string, Set<string> | undefined>();

  add(name: string, address?: string): void {
    const key = name.toLowerCase();
    if (address === undefined) {
      if (!this.#byName.has(key)) this.#byName.set(key, undefined);
      return;
    }
    const addresses = this.#byName.get(key) ?? new Set<string>();
    addresses.add(address);
    this.#byName.set(key, addresses);
  }

  names(): string[] {
    return [...this.#byName.keys()];
  }

  addresses(name: string): string[] {
    return [...(this.#byName.get(name.toLowerCase()) ?? [])];
  }

  /** Items in the reference's sorted order: by name, then each name's 'name/ip' texts. */
  sortedItems(): string[] {
    return [...this.#byName.keys()].sort().flatMap((name) => {
      const addresses = this.#byName.get(name);
      return addresses ? [...addresses].map((address) => `${name}/${address}`).sort() : [name];
    });
  }
}

const inZone = (zone: Name, name: Name): boolean => name.isSubdomainOf(zone);

/** Addresses of `owner` of both families in a response's answer section. */
function answerAddresses(message: DnsMessage | undefined, owner: Name): string[] {
  if (!message) return [];
  return [...recordsFor(message, RRType.A, owner, ['answer']), ...recordsFor(message, RRType.AAAA, owner, ['answer'])].flatMap((rr) =>
    recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA) ? [rr.rdata.address] : [],
  );
}

const cs05Tags = [
  'CS05_CHILD_ZONE_LAME',
  'CS05_DELEGATION',
  'CS05_EXTRA_ADDR_CHILD',
  'CS05_ID_ADDR_MISMATCH',
  'CS05_ID_ADDR_MISSING',
  'CS05_INCONSISTENT_DELEGATION',
  'CS05_MISSING_GLUE_FOR_NS',
  'CS05_MISSING_GLUE_FOR_NS_UNDEL',
  'CS05_MISSING_GLUE_FOR_ROOT_NS',
  'CS05_NO_MISMATCH_GLUE_ZONE',
  'CS05_NO_NS_ADDR_CHILD',
  'CS05_OOD_ADDR_MISMATCH',
];

/** The parent's glue, sorted into in-zone and out-of-zone name servers; in-zone names without glue, with the parent servers that gave none. */
interface ParentGlue {
  idServers: ServerSet;
  oodServers: ServerSet;
  missingGlue: Map<string, string[]>;
}

/** The delegation as each parent server gives it: the NS names of a referral, with the glue for them. */
async function delegationsByParent(zone: Zone, parentServers: readonly Nameserver[]): Promise<Map<string, ServerSet>> {
  const referrals = await Promise.all(
    parentServers.map(async (server) => (await server.query(zone.name, RRType.SOA, { tcp: true })) ?? server.query(zone.name, RRType.SOA)),
  );
  const perParent = new Map<string, ServerSet>();
  parentServers.forEach((server, i) => {
    const response = referrals[i];
    if (!response || responseKind(response) !== 'referral') return;
    const set = new ServerSet();
    const nsNames = new Set(
      recordsFor(response, RRType.NS, zone.name, ['authority']).flatMap((rr) =>
        recordIs(rr, RRType.NS) ? [displayName(rr.rdata.target).toLowerCase()] : [],
      ),
    );
    for (const name of nsNames) set.add(name);
    for (const rr of response.additional) {
      if ((recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA)) && nsNames.has(displayName(rr.name).toLowerCase()))
        set.add(displayName(rr.name), rr.rdata.address);
    }
    perParent.set(server.toString(), set);
  });
  return perParent;
}

function inconsistentDelegation(perParent: ReadonlyMap<string, ServerSet>): Message[] {
  const variants = new Map<string, string[]>();
  for (const [parentServer, set] of perParent) {
    const key = set.sortedItems().join(';');
    variants.set(key, [...(variants.get(key) ?? []), parentServer]);
  }
  if (variants.size <= 1) return [];
  return [
    { tag: 'CS05_INCONSISTENT_DELEGATION', args: {} },
    ...[...variants.entries()]
      .sort(([a], [b]) => byText(a, b))
      .map(([ns_deleg_list, list]) => ({ tag: 'CS05_DELEGATION', args: { ns_deleg_list, ns_list: [...list].sort().join(';') } })),
  ];
}

function sortGlue(zone: Zone, perParent: ReadonlyMap<string, ServerSet>): ParentGlue {
  const glue: ParentGlue = { idServers: new ServerSet(), oodServers: new ServerSet(), missingGlue: new Map() };
  for (const parentServer of [...perParent.keys()].sort()) {
    const set = perParent.get(parentServer)!;
    for (const name of set.names()) {
      const addresses = set.addresses(name);
      const target = inZone(zone.name, Name.fromString(`${name}.`)) ? glue.idServers : glue.oodServers;
      if (addresses.length === 0) {
        target.add(name);
        if (target === glue.idServers) glue.missingGlue.set(name, [...(glue.missingGlue.get(name) ?? []), parentServer]);
      }
      for (const address of addresses) target.add(name, address);
    }
  }
  return glue;
}

/** An undelegated test's given name servers stand for the delegation; the root's come from the hints. */
async function givenGlue(zone: Zone, { idServers, oodServers }: ParentGlue): Promise<Message[]> {
  if (!zone.undelegated && !zone.name.isRoot) return [];
  const messages: Message[] = [];
  const glue = await zone.glue();
  for (const nsName of await zone.glueNames()) {
    const name = displayName(nsName);
    const addresses = glue.filter((server) => server.name.equals(nsName)).map((server) => server.address);
    const target = inZone(zone.name, nsName) ? idServers : oodServers;
    if (addresses.length === 0 && target === idServers)
      messages.push({ tag: zone.name.isRoot ? 'CS05_MISSING_GLUE_FOR_ROOT_NS' : 'CS05_MISSING_GLUE_FOR_NS_UNDEL', args: { nsname: name } });
    else if (addresses.length === 0) target.add(name);
    for (const address of addresses) target.add(name, address);
  }
  return messages;
}

/**
 * What the zone's servers say of the in-zone name servers' addresses, when they answer for the zone; the
 * servers of one copy of the zone say the same, so each name is asked of a copy once. `answering` counts
 * the servers that gave the zone's NS names.
 */
async function addressesInZone(
  zone: Zone,
  childServers: readonly Nameserver[],
  idServers: ServerSet,
): Promise<{ addresses: ServerSet; answering: number }> {
  const addresses = new ServerSet();
  let answering = 0;
  await Promise.all(
    (await byZoneCopy(zone, childServers)).map(async (copy) => {
      const named = await Promise.all(
        copy.map(async (server) => {
          const response = await server.query(zone.name, RRType.NS);
          if (!response || response.rcode !== Rcode.NOERROR || !response.aa) return undefined;
          const names = [
            ...new Set(
              recordsFor(response, RRType.NS, zone.name).flatMap((rr) =>
                recordIs(rr, RRType.NS) ? [displayName(rr.rdata.target).toLowerCase()] : [],
              ),
            ),
          ];
          if (names.length > 0) answering++;
          return { server, names };
        }),
      );
      const answered = named.filter((item) => item !== undefined);
      const first = answered[0];
      if (first === undefined) return;
      const asked = [...new Set([...first.names.filter((name) => inZone(zone.name, Name.fromString(`${name}.`))), ...idServers.names()])];
      await Promise.all(
        asked.flatMap((name) =>
          [RRType.A, RRType.AAAA].map(async (qtype) => {
            const owner = Name.fromString(`${name}.`);
            for (const { server } of answered) {
              let answer = await server.query(owner, qtype);
              // The reference's recursor, started at this server, follows a referral onwards.
              if (answer && responseKind(answer) === 'referral') answer = (await zone.recurse(owner, qtype)).message;
              if (!answer || answer.rcode !== Rcode.NOERROR || !answer.aa) continue;
              for (const address of answerAddresses(answer, owner)) addresses.add(name, address);
              return;
            }
          }),
        ),
      );
    }),
  );
  return { addresses, answering };
}

/** In-zone glue against the addresses the zone serves for the name. */
function compareInZoneGlue(idServers: ServerSet, zoneServed: ServerSet): Message[] {
  const messages: Message[] = [];
  const extra = new Set<string>();
  for (const name of idServers.names()) {
    const glueAddresses = idServers.addresses(name);
    if (glueAddresses.length === 0) continue;
    const zoneAddresses = zoneServed.addresses(name);
    const onlyInParent = glueAddresses.filter((address) => !zoneAddresses.includes(address));
    if (zoneAddresses.length === 0) {
      messages.push({ tag: 'CS05_ID_ADDR_MISSING', args: { nsname: name } });
    } else if (onlyInParent.length > 0) {
      const order = (list: string[]): string =>
        list
          .map((address) => `${name}/${address}`)
          .sort()
          .map((item) => item.slice(name.length + 1))
          .join(';');
      messages.push({
        tag: 'CS05_ID_ADDR_MISMATCH',
        args: { nsname: name, ns_ip_list_glue: order(onlyInParent), ns_ip_list_zone: order(zoneAddresses) },
      });
    } else {
      for (const address of zoneAddresses) if (!glueAddresses.includes(address)) extra.add(address);
    }
  }
  if (extra.size > 0) messages.push({ tag: 'CS05_EXTRA_ADDR_CHILD', args: { ns_list: [...extra].sort().join(';') } });
  return messages;
}

/** Out-of-zone glue against the addresses the name resolves to. */
async function compareOutOfZoneGlue(zone: Zone, oodServers: ServerSet): Promise<Message[]> {
  const messages: Message[] = [];
  for (const name of oodServers.names().sort()) {
    const glueAddresses = oodServers.addresses(name);
    if (glueAddresses.length === 0) continue;
    const owner = Name.fromString(`${name}.`);
    const lookups = await Promise.all([RRType.A, RRType.AAAA].map((qtype) => zone.recurse(owner, qtype)));
    const found = [...new Set(lookups.flatMap(({ message }) => (message?.rcode === Rcode.NOERROR ? answerAddresses(message, owner) : [])))];
    if (found.length === 0) continue;
    const sorted = (list: string[]): string[] =>
      list
        .map((address) => `${name}/${address}`)
        .sort()
        .map((item) => item.slice(name.length + 1));
    if (sorted(glueAddresses).join(';') !== sorted(found).join(';')) {
      // The reference prints each address as its IP object's numeric value; we print the addresses.
      messages.push({
        tag: 'CS05_OOD_ADDR_MISMATCH',
        args: { nsname: name, ns_ip_list_ref: sorted(glueAddresses).join(';'), ns_ip_list_lookup: sorted(found).join(';') },
      });
    }
  }
  return messages;
}

/**
 * Consistency05: the delegation each parent server gives (NS names and glue) is the same everywhere,
 * in-zone name servers have glue, the glue matches the addresses the zone itself serves, and
 * out-of-zone glue matches what resolving the name gives.
 */
export const consistency05: TestCase = {
  id: 'Consistency05',
  spec: `${specs}/consistency05.md`,
  after: afterConnectivity,
  tags: cs05Tags,
  async run(context) {
    const { zone } = context;
    const sets = await serverSets(zone);
    const perParent = await delegationsByParent(
      zone,
      sets.parent.filter((server) => familyOn(context, server)),
    );
    const glue = sortGlue(zone, perParent);
    const messages: Message[] = [...inconsistentDelegation(perParent), ...(await givenGlue(zone, glue))];
    for (const [nsname, list] of glue.missingGlue)
      messages.push({ tag: 'CS05_MISSING_GLUE_FOR_NS', args: { nsname, ns_list: list.join(';') } });

    // The zone's servers (delegation's and its own), one per address.
    const childServers = [
      ...new Map(
        [...onePerAddress(sets.delegation.servers), ...onePerAddress(sets.zone.servers)].map((server) => [server.toString(), server]),
      ).values(),
    ];
    if (childServers.length === 0) return [...messages, { tag: 'CS05_NO_NS_ADDR_CHILD', args: {} }];
    const served = await addressesInZone(zone, childServers, glue.idServers);
    if (served.answering === 0)
      return [...messages, { tag: 'CS05_CHILD_ZONE_LAME', args: { ns_list: childServers.map((server) => server.toString()).join(';') } }];

    messages.push(...compareInZoneGlue(glue.idServers, served.addresses), ...(await compareOutOfZoneGlue(zone, glue.oodServers)));
    if (!messages.some((m) => m.tag.startsWith('CS05_'))) messages.push({ tag: 'CS05_NO_MISMATCH_GLUE_ZONE', args: {} });
    return messages;
  },
};

export const consistency: TestModule = {
  name: 'CONSISTENCY',
  testCases: [consistency01, consistency02, consistency03, consistency04, consistency05, consistency06],
};
