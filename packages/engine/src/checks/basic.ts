// Basic: can the domain be tested at all? Test cases, tags, arguments and levels follow the reference
// engine 9.0.1 (specifications: docs/public/specifications/tests/Basic-TP/ in zonemaster/zonemaster).
import { Name, Rcode, RRType } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { displayName, rcodeName, recordsFor } from '../net/response.ts';
import { describeAnswer } from '../net/root-impersonation.ts';

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
  for (const rrtype of rrtypes)
    into.push({ tag: `IPV${server.family}_${enabled ? 'ENABLED' : 'DISABLED'}`, args: { ns: server.toString(), rrtype } });
  return !enabled;
}

const nsList = (servers: Iterable<string>): string => [...new Set(servers)].sort().join(';');

/** Basic01: the parent zone is found, and in it a delegation of the domain (or the domain's own SOA). */
export const basic01: TestCase = {
  id: 'Basic01',
  spec: `${specs}/basic01.md`,
  tags: [
    'B01_CHILD_FOUND',
    'B01_CHILD_IS_ALIAS',
    'B01_INCONSISTENT_ALIAS',
    'B01_INCONSISTENT_DELEGATION',
    'B01_NO_CHILD',
    'B01_PARENT_DISREGARDED',
    'B01_PARENT_FOUND',
    'B01_PARENT_NOT_FOUND',
    'B01_PARENT_UNDETERMINED',
    'B01_ROOT_HAS_NO_PARENT',
    'B01_SERVER_ZONE_ERROR',
    'IPV4_ENABLED',
    'IPV4_DISABLED',
    'IPV6_ENABLED',
    'IPV6_DISABLED',
    'ROOT_SERVERS_UNREACHABLE',
    'ROOT_SERVERS_INTERCEPTED',
  ],
  async run(context) {
    const { zone } = context;
    const domain = zone.nameText;
    if (zone.name.isRoot)
      return [
        { tag: 'B01_CHILD_FOUND', args: { domain } },
        { tag: 'B01_ROOT_HAS_NO_PARENT', args: {} },
      ];
    if (zone.hasGivenNameservers)
      return [
        { tag: 'B01_CHILD_FOUND', args: { domain } },
        { tag: 'B01_PARENT_DISREGARDED', args: {} },
      ];

    const messages: Message[] = [];
    // Per enclosing zone found, the servers that said so, by what the child looked like there.
    const verdicts = new Map<string, Map<string, string[]>>();
    const dnames = new Map<string, Map<string, string[]>>();
    const note = (into: Map<string, Map<string, string[]>>, key: string, parent: string, server: string): void => {
      const byParent = into.get(key) ?? new Map<string, string[]>();
      into.set(key, byParent);
      byParent.set(parent, [...(byParent.get(parent) ?? []), server]);
    };
    for (const walk of await zone.parentWalk()) {
      messages.push(...walk.messages);
      if (!walk.verdict) continue;
      const { parent, kind, dname } = walk.verdict;
      if (kind === 'dname') note(dnames, dname!, parent, walk.server.toString());
      else note(verdicts, kind, parent, walk.server.toString());
    }
    // Not the zone's fault (our own finding): something on the network answers in the root servers'
    // place (a captive portal, a company resolver). What the walk found is then that network's answer,
    // not a fact about the domain, so the finding stands alone and first; without the child found the
    // run stops after Basic.
    const intercepted = await zone.interceptedRoot();
    if (intercepted.length > 0) {
      return [
        {
          tag: 'ROOT_SERVERS_INTERCEPTED',
          args: { ns_list: intercepted.map((i) => i.server.toString()).join(';'), answer: describeAnswer(intercepted[0].answer) },
        },
        ...messages,
      ];
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
      const other = [
        verdicts.get('nxdomain'),
        verdicts.get('cname'),
        verdicts.get('cname-referral'),
        ...dnames.values(),
        verdicts.get('nodata'),
      ].filter((m) => m !== undefined);
      for (const parent of new Set(other.flatMap((byParent) => [...byParent.keys()]))) {
        messages.push({
          tag: 'B01_INCONSISTENT_DELEGATION',
          args: { domain_parent: parent, domain_child: domain, ns_list: nsList(other.flatMap((byParent) => byParent.get(parent) ?? [])) },
        });
      }
    } else {
      messages.push({ tag: 'B01_NO_CHILD', args: { domain_child: domain, domain_super: displayName(zone.name.parent()!) } });
    }
    for (const [target, byParent] of dnames) {
      messages.push({
        tag: 'B01_CHILD_IS_ALIAS',
        args: { domain_child: domain, domain_target: target, ns_list: nsList([...byParent.values()].flat()) },
      });
    }
    if (dnames.size > 1) messages.push({ tag: 'B01_INCONSISTENT_ALIAS', args: { domain } });
    // Nor is it when the network cannot reach the root at all (9.0.1's findings stay, this one follows).
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
    'B02_AUTH_RESPONSE_SOA',
    'B02_NO_DELEGATION',
    'B02_NO_WORKING_NS',
    'B02_NS_BROKEN',
    'B02_NS_NOT_AUTH',
    'B02_NS_NO_IP_ADDR',
    'B02_NS_NO_RESPONSE',
    'B02_UNEXPECTED_RCODE',
    'IPV4_ENABLED',
    'IPV4_DISABLED',
    'IPV6_ENABLED',
    'IPV6_DISABLED',
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
  tags: [
    'HAS_A_RECORDS',
    'NO_A_RECORDS',
    'A_QUERY_NO_RESPONSES',
    'HAS_NAMESERVER_NO_WWW_A_TEST',
    'IPV4_ENABLED',
    'IPV4_DISABLED',
    'IPV6_ENABLED',
    'IPV6_DISABLED',
  ],
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
