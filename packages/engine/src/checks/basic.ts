// Basic: can the domain be tested at all? Test cases, tags, arguments and levels follow the reference
// engine 9.0.1 (specifications: docs/public/specifications/tests/Basic-TP/ in zonemaster/zonemaster).
import { Name, Rcode, RRType, recordIs, type Message as DnsMessage } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver.ts';
import { addressesIn, displayName, nsNames, rcodeName, recordsFor, recordsOfType, responseKind } from '../net/response.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Basic-TP';

const ran = (context: TestContext, id: string): boolean => context.earlier.some((f) => f.testcase === id);
const found = (context: TestContext, tag: string): boolean => context.earlier.some((f) => f.module === 'BASIC' && f.tag === tag);

/** As the reference's Basic module: Basic02 and 03 only run once Basic01 (when it ran) found the zone. */
function childFound(context: TestContext): { run: true } | { run: false } {
  return !ran(context, 'Basic01') || found(context, 'B01_CHILD_FOUND') ? { run: true } : { run: false };
}

/** The IPV4_/IPV6_ENABLED or _DISABLED messages for a server, one per query type; true when its family is off. */
function familyMessages(context: TestContext, server: Nameserver, rrtypes: readonly string[], into: Message[]): boolean {
  const enabled = server.family === 4 ? context.profile.net.ipv4 : context.profile.net.ipv6;
  for (const rrtype of rrtypes) into.push({ tag: `IPV${server.family}_${enabled ? 'ENABLED' : 'DISABLED'}`, args: { ns: server.toString(), rrtype } });
  return !enabled;
}

const isAuthNoError = (response: DnsMessage | undefined): response is DnsMessage => response !== undefined && response.rcode === Rcode.NOERROR && response.aa;

/** An authoritative NOERROR answer with exactly one SOA for the name. */
const hasZoneSoa = (response: DnsMessage | undefined, name: Name): boolean => isAuthNoError(response) && recordsFor(response, RRType.SOA, name, ['answer']).length === 1;

/** An authoritative NOERROR answer whose NS records, at least one, are all for the name. */
function hasZoneNs(response: DnsMessage | undefined, name: Name): boolean {
  if (!isAuthNoError(response)) return false;
  const all = recordsOfType(response, RRType.NS, ['answer']).length;
  return all > 0 && all === recordsFor(response, RRType.NS, name, ['answer']).length;
}

/** What one server said on the way down to the zone (Basic01): where it stopped, and the servers it named. */
interface Walk {
  messages: Message[];
  /** The enclosing zone it found and how the child looked there; none when it failed. */
  verdict?: { parent: string; kind: 'delegation' | 'soa' | 'nxdomain' | 'cname' | 'cname-referral' | 'nodata' | 'dname'; dname?: string };
  /** Servers of zones further down, in the order named: [zone, server]. */
  servers: [Name, Nameserver][];
}

/** Name servers a response names for `owner` (with the section's glue, else resolved), as servers of that zone. */
async function namedServers(context: TestContext, response: DnsMessage, owner: Name, section: 'answer' | 'authority'): Promise<[Name, Nameserver][]> {
  const names = nsNames(response, owner, [section]);
  const perName = await Promise.all(
    names.map(async (nsName) => {
      const glue = addressesIn(response, nsName, ['additional']);
      if (glue.length > 0) return glue;
      const lookups = await Promise.all([RRType.A, RRType.AAAA].map((type) => context.zone.recurse(nsName, type)));
      return lookups.flatMap(({ message }) => (message?.rcode === Rcode.NOERROR ? addressesIn(message, nsName) : []));
    }),
  );
  return names.flatMap((nsName, i) => perName[i].map((address): [Name, Nameserver] => [owner, context.zone.server(nsName, address)]));
}

/**
 * One server of `zoneName`, as the reference's Basic01 asks it: is it authoritative for its zone, and
 * then, label by label towards the tested zone, where does the tree end or refer elsewhere?
 */
async function walkFrom(context: TestContext, zoneName: Name, server: Nameserver): Promise<Walk> {
  const target = context.zone.name;
  const messages: Message[] = [];
  const servers: [Name, Nameserver][] = [];
  const zoneError = (name: Name, rrtype: string): Walk => {
    messages.push({ tag: 'B01_SERVER_ZONE_ERROR', args: { query_name: displayName(name), rrtype, ns: server.toString() } });
    return { messages, servers };
  };
  if (familyMessages(context, server, ['SOA', 'NS', 'DNAME'], messages)) return { messages, servers };
  if (!hasZoneSoa(await server.query(zoneName, RRType.SOA), zoneName)) return zoneError(zoneName, 'SOA');
  if (!hasZoneNs(await server.query(zoneName, RRType.NS), zoneName)) return zoneError(zoneName, 'NS');

  let parent = displayName(zoneName);
  for (let depth = zoneName.labelCount + 1; depth <= target.labelCount; depth++) {
    const name = Name.fromLabels(target.labels.slice(-depth));
    const isTarget = depth === target.labelCount;
    const soa = await server.query(name, RRType.SOA);
    if (!soa) return zoneError(name, 'SOA');
    const verdict = (kind: NonNullable<Walk['verdict']>['kind'], dname?: string): Walk => ({ messages, servers, verdict: { parent, kind, ...(dname && { dname }) } });
    const referral = responseKind(soa) === 'referral';
    if (hasZoneSoa(soa, name)) {
      if (isTarget) return verdict('soa');
      const ns = await server.query(name, RRType.NS);
      if (!hasZoneNs(ns, name)) return zoneError(name, 'NS');
      servers.push(...(await namedServers(context, ns!, name, 'answer')));
      parent = displayName(name);
      continue;
    }
    if (soa.rcode === Rcode.NXDOMAIN && soa.aa) return verdict('nxdomain');
    if (referral && recordsFor(soa, RRType.NS, name, ['authority']).length > 0) {
      if (isTarget) return verdict('delegation');
      servers.push(...(await namedServers(context, soa, name, 'authority')));
      return { messages, servers };
    }
    if (isAuthNoError(soa)) {
      // An empty non-terminal or other name inside the zone: one label further down.
      if (!isTarget) continue;
      if (recordsFor(soa, RRType.CNAME, target, ['answer']).length > 0) return verdict('cname');
      const dname = await server.query(target, RRType.DNAME);
      const dnames = isAuthNoError(dname) ? recordsFor(dname, RRType.DNAME, target, ['answer']) : [];
      const [only] = dnames;
      if (dnames.length === 1 && recordIs(only, RRType.DNAME)) return verdict('dname', only.rdata.target.toString());
      return verdict('nodata');
    }
    if (referral && recordsFor(soa, RRType.CNAME, target, ['answer']).length > 0) return verdict('cname-referral');
    return zoneError(name, 'SOA');
  }
  return { messages, servers };
}

const nsList = (servers: Iterable<string>): string => [...new Set(servers)].sort().join(';');

/** Basic01: the parent zone is found, and in it a delegation of the domain (or the domain's own SOA). */
export const basic01: TestCase = {
  id: 'Basic01',
  spec: `${specs}/basic01.md`,
  tags: [
    'B01_CHILD_FOUND', 'B01_CHILD_IS_ALIAS', 'B01_INCONSISTENT_ALIAS', 'B01_INCONSISTENT_DELEGATION', 'B01_NO_CHILD', 'B01_PARENT_DISREGARDED',
    'B01_PARENT_FOUND', 'B01_PARENT_NOT_FOUND', 'B01_PARENT_UNDETERMINED', 'B01_ROOT_HAS_NO_PARENT', 'B01_SERVER_ZONE_ERROR',
    'IPV4_ENABLED', 'IPV4_DISABLED', 'IPV6_ENABLED', 'IPV6_DISABLED', 'ROOT_SERVERS_UNREACHABLE',
  ],
  async run(context) {
    const { zone } = context;
    const domain = zone.nameText;
    if (zone.name.isRoot) return [{ tag: 'B01_CHILD_FOUND', args: { domain } }, { tag: 'B01_ROOT_HAS_NO_PARENT', args: {} }];
    if (zone.hasGivenNameservers) return [{ tag: 'B01_CHILD_FOUND', args: { domain } }, { tag: 'B01_PARENT_DISREGARDED', args: {} }];

    const messages: Message[] = [];
    // Per enclosing zone found, the servers that said so, by what the child looked like there.
    const verdicts = new Map<string, Map<string, string[]>>();
    const dnames = new Map<string, Map<string, string[]>>();
    const note = (into: Map<string, Map<string, string[]>>, key: string, parent: string, server: string): void => {
      const byParent = into.get(key) ?? new Map<string, string[]>();
      into.set(key, byParent);
      byParent.set(parent, [...(byParent.get(parent) ?? []), server]);
    };
    const zoneServers = new Map<string, Nameserver[]>([[Name.root.key(), zone.rootServers]]);
    const queue: Name[] = [Name.root];
    const queued = new Set<string>([Name.root.key()]);
    // Zone by zone in the order found; a zone's servers (one per address) are asked at once and their
    // results taken in order, which is what the reference's one-by-one walk gives.
    for (let next = queue.shift(); next; next = queue.shift()) {
      const handled = new Set<string>();
      const servers = (zoneServers.get(next.key()) ?? []).filter((server) => !handled.has(server.address) && handled.add(server.address));
      const walks = await Promise.all(servers.map((server) => walkFrom(context, next, server)));
      walks.forEach((walk, i) => {
        messages.push(...walk.messages);
        if (walk.verdict) {
          const { parent, kind, dname } = walk.verdict;
          if (kind === 'dname') note(dnames, dname!, parent, servers[i].toString());
          else note(verdicts, kind, parent, servers[i].toString());
        }
        for (const [zoneName, server] of walk.servers) {
          const key = zoneName.key();
          zoneServers.set(key, [...(zoneServers.get(key) ?? []), server]);
          if (!queued.has(key)) {
            queued.add(key);
            queue.push(zoneName);
          }
        }
      });
    }

    const parents = new Map<string, string[]>();
    for (const byParent of [...verdicts.values(), ...dnames.values()]) {
      for (const [parent, servers] of byParent) parents.set(parent, [...(parents.get(parent) ?? []), ...servers]);
    }
    for (const [parent, servers] of parents) messages.push({ tag: 'B01_PARENT_FOUND', args: { domain: parent, ns_list: nsList(servers) } });
    if (parents.size > 1) messages.push({ tag: 'B01_PARENT_UNDETERMINED', args: { ns_list: nsList([...parents.values()].flat()) } });
    if (parents.size === 0) messages.push({ tag: 'B01_PARENT_NOT_FOUND', args: {} });

    if (verdicts.has('delegation') || verdicts.has('soa')) {
      messages.push({ tag: 'B01_CHILD_FOUND', args: { domain } });
      const other = [verdicts.get('nxdomain'), verdicts.get('cname'), verdicts.get('cname-referral'), ...dnames.values(), verdicts.get('nodata')].filter((m) => m !== undefined);
      for (const parent of new Set(other.flatMap((byParent) => [...byParent.keys()]))) {
        messages.push({ tag: 'B01_INCONSISTENT_DELEGATION', args: { domain_parent: parent, domain_child: domain, ns_list: nsList(other.flatMap((byParent) => byParent.get(parent) ?? [])) } });
      }
    } else {
      messages.push({ tag: 'B01_NO_CHILD', args: { domain_child: domain, domain_super: displayName(zone.name.parent()!) } });
    }
    for (const [target, byParent] of dnames) {
      messages.push({ tag: 'B01_CHILD_IS_ALIAS', args: { domain_child: domain, domain_target: target, ns_list: nsList([...byParent.values()].flat()) } });
    }
    if (dnames.size > 1) messages.push({ tag: 'B01_INCONSISTENT_ALIAS', args: { domain } });
    // Not the zone's fault (our own finding): the network cannot reach the root at all.
    const roots = zone.unreachableRoot();
    if (roots.length > 0) messages.push({ tag: 'ROOT_SERVERS_UNREACHABLE', args: { ns_list: roots.map(String).join(';') } });
    return messages;
  },
};

/** Basic02: the delegated name servers give an authoritative SOA answer for the zone. */
export const basic02: TestCase = {
  id: 'Basic02',
  spec: `${specs}/basic02.md`,
  after: ['Basic01'],
  tags: [
    'B02_AUTH_RESPONSE_SOA', 'B02_NO_DELEGATION', 'B02_NO_WORKING_NS', 'B02_NS_BROKEN', 'B02_NS_NOT_AUTH', 'B02_NS_NO_IP_ADDR', 'B02_NS_NO_RESPONSE',
    'B02_UNEXPECTED_RCODE', 'IPV4_ENABLED', 'IPV4_DISABLED', 'IPV6_ENABLED', 'IPV6_DISABLED',
  ],
  precondition: childFound,
  async run(context) {
    const { zone } = context;
    const domain = zone.nameText;
    const names = await zone.glueNames();
    if (names.length === 0) return [{ tag: 'B02_NO_DELEGATION', args: { domain } }];
    const messages: Message[] = [];
    const servers = [...(await zone.glue())];
    // When no name resolves, the addresses the parent gave with the delegation are asked instead;
    // a name without any is reported (only then).
    const unaddressed: string[] = [];
    if (servers.length === 0) {
      const glue = await zone.glueAddresses();
      for (const nsName of names) {
        const given = glue.filter((rr) => rr.name.equals(nsName));
        if (given.length === 0) unaddressed.push(displayName(nsName));
        servers.push(...given.map((rr) => zone.server(nsName, rr.address)));
      }
    }
    const enabled = servers.filter((server) => !familyMessages(context, server, ['SOA'], messages));
    const responses = await Promise.all(enabled.map((server) => server.query(zone.name, RRType.SOA)));
    const verdicts = { auth: new Set<string>(), broken: new Set<string>(), notAuth: new Set<string>(), silent: new Set<string>() };
    const rcodes = new Map<string, string>();
    enabled.forEach((server, i) => {
      const response = responses[i];
      const ns = server.toString();
      if (!response) verdicts.silent.add(ns);
      else if (response.rcode !== Rcode.NOERROR) rcodes.set(ns, rcodeName(response.rcode));
      else if (!response.aa) verdicts.notAuth.add(ns);
      else if (recordsFor(response, RRType.SOA, zone.name, ['answer']).length > 0) verdicts.auth.add(ns);
      else verdicts.broken.add(ns);
    });
    if (verdicts.auth.size > 0) {
      messages.push({ tag: 'B02_AUTH_RESPONSE_SOA', args: { domain, ns_list: nsList(verdicts.auth) } });
      return messages;
    }
    messages.push({ tag: 'B02_NO_WORKING_NS', args: { domain } });
    for (const ns of verdicts.broken) messages.push({ tag: 'B02_NS_BROKEN', args: { ns } });
    for (const ns of verdicts.notAuth) messages.push({ tag: 'B02_NS_NOT_AUTH', args: { ns } });
    for (const nsname of unaddressed) messages.push({ tag: 'B02_NS_NO_IP_ADDR', args: { nsname } });
    for (const ns of verdicts.silent) messages.push({ tag: 'B02_NS_NO_RESPONSE', args: { ns } });
    for (const [ns, rcode] of rcodes) messages.push({ tag: 'B02_UNEXPECTED_RCODE', args: { rcode, ns } });
    return messages;
  },
};

/** Basic03: only when no server gave an authoritative SOA, does any server answer A for www in the zone? */
export const basic03: TestCase = {
  id: 'Basic03',
  spec: `${specs}/basic03.md`,
  after: ['Basic01', 'Basic02'],
  tags: ['HAS_A_RECORDS', 'NO_A_RECORDS', 'A_QUERY_NO_RESPONSES', 'HAS_NAMESERVER_NO_WWW_A_TEST', 'IPV4_ENABLED', 'IPV4_DISABLED', 'IPV6_ENABLED', 'IPV6_DISABLED'],
  precondition(context) {
    if (!childFound(context).run) return { run: false };
    if (!found(context, 'B02_AUTH_RESPONSE_SOA')) return { run: true };
    return { run: false, instead: { tag: 'HAS_NAMESERVER_NO_WWW_A_TEST', args: { zname: context.zone.nameText } } };
  },
  async run(context) {
    const { zone } = context;
    const www = Name.fromString(`www.${zone.name.toString()}`);
    const domain = displayName(www);
    const servers = await zone.glue();
    const messages: Message[] = [];
    const responses = await Promise.all(servers.map((server) => server.query(www, RRType.A)));
    let answered = 0;
    servers.forEach((server, i) => {
      if (familyMessages(context, server, ['A'], messages)) return;
      const response = responses[i];
      if (!response) return;
      answered++;
      const hasA = recordsFor(response, RRType.A, www).length > 0;
      messages.push({ tag: hasA ? 'HAS_A_RECORDS' : 'NO_A_RECORDS', args: { ns: server.toString(), domain } });
    });
    if (servers.length > 0 && answered === 0) messages.push({ tag: 'A_QUERY_NO_RESPONSES', args: {} });
    return messages;
  },
};

export const basic: TestModule = { name: 'BASIC', testCases: [basic01, basic02, basic03] };
