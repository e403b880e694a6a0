// Basic: can the domain be tested at all? Tags and levels follow the reference engine 4.6
// (specifications: docs/public/specifications/tests/Basic-TP/ in zonemaster/zonemaster).
import { Name, RRType } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver.ts';
import { displayName, nsNames, rcodeName, recordsFor } from '../net/response.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Basic-TP';
const maxLabelLength = 63;
// With the final dot, as the reference counts.
const maxNameLength = 254;
const nameFaults = new Set(['DOMAIN_NAME_LABEL_TOO_LONG', 'DOMAIN_NAME_ZERO_LENGTH_LABEL', 'DOMAIN_NAME_TOO_LONG']);

function nameIsUsable({ earlier }: TestContext): { run: true } | { run: false } {
  return earlier.some((f) => f.module === 'BASIC' && nameFaults.has(f.tag)) ? { run: false } : { run: true };
}

/** Basic02 and 03 learn nothing from a delegation when the root could not be reached (given servers still work). */
function delegationKnowable(context: TestContext): { run: true } | { run: false } {
  const rootLost = context.earlier.some((f) => f.tag === 'ROOT_SERVERS_UNREACHABLE') && context.zone.undelegated === undefined;
  return rootLost ? { run: false } : nameIsUsable(context);
}

/** The IPV4_/IPV6_ENABLED or _DISABLED message for a server; true when the family is off. */
function familyMessage(context: TestContext, server: Nameserver, rrtype: string, into: Message[]): boolean {
  const enabled = server.family === 4 ? context.profile.net.ipv4 : context.profile.net.ipv6;
  into.push({ tag: `IPV${server.family}_${enabled ? 'ENABLED' : 'DISABLED'}`, args: { ns: server.toString(), rrtype } });
  return !enabled;
}

/** Basic00 (reference 4.6): label and name lengths, and no empty labels. */
export const basic00: TestCase = {
  id: 'Basic00',
  spec: `${specs}/basic00.md`,
  tags: ['DOMAIN_NAME_LABEL_TOO_LONG', 'DOMAIN_NAME_ZERO_LENGTH_LABEL', 'DOMAIN_NAME_TOO_LONG'],
  run(context) {
    const messages: Message[] = [];
    const domain = context.domain;
    const labels = domain === '.' ? [] : domain.replace(/\.$/, '').split('.');
    for (const label of labels) {
      if (label.length > maxLabelLength) {
        messages.push({ tag: 'DOMAIN_NAME_LABEL_TOO_LONG', args: { domain, label, dlength: label.length, max: maxLabelLength } });
      } else if (label.length === 0) {
        messages.push({ tag: 'DOMAIN_NAME_ZERO_LENGTH_LABEL', args: { domain } });
      }
    }
    const fqdn = `${labels.join('.')}.`;
    if (fqdn.length > maxNameLength) messages.push({ tag: 'DOMAIN_NAME_TOO_LONG', args: { fqdn, fqdnlength: fqdn.length, max: maxNameLength } });
    return Promise.resolve(messages);
  },
};

/** Basic01: a parent zone is found for the domain. */
export const basic01: TestCase = {
  id: 'Basic01',
  spec: `${specs}/basic01.md`,
  after: ['Basic00'],
  tags: ['HAS_PARENT', 'NO_PARENT', 'ROOT_SERVERS_UNREACHABLE'],
  precondition: nameIsUsable,
  async run({ zone }) {
    const parent = await zone.parent();
    // Not the zone's fault: say what is really wrong, and spare the reader Basic02's verdict on the delegation.
    const roots = zone.unreachableRoot();
    if (roots.length > 0) return [{ tag: 'ROOT_SERVERS_UNREACHABLE', args: { ns_list: roots.map(String).join(';') } }];
    return parent
      ? [{ tag: 'HAS_PARENT', args: { zone: zone.nameText, pname: displayName(parent.name) } }]
      : [{ tag: 'NO_PARENT', args: { zone: zone.nameText } }];
  },
};

/** Basic02: the delegated name servers answer an NS query for the zone. */
export const basic02: TestCase = {
  id: 'Basic02',
  spec: `${specs}/basic02.md`,
  after: ['Basic00', 'Basic01'],
  tags: ['NO_GLUE_PREVENTS_NAMESERVER_TESTS', 'NS_NO_RESPONSE', 'HAS_NAMESERVERS', 'NS_FAILED', 'IPV4_ENABLED', 'IPV4_DISABLED', 'IPV6_ENABLED', 'IPV6_DISABLED'],
  precondition: delegationKnowable,
  async run(context) {
    const { zone } = context;
    const servers = await zone.glue();
    const messages: Message[] = [];
    if (servers.length === 0) messages.push({ tag: 'NO_GLUE_PREVENTS_NAMESERVER_TESTS', args: {} });
    // In parallel; a server of a family that is off is not asked (its query gives undefined at once).
    const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.NS)));
    servers.forEach((server, i) => {
      if (familyMessage(context, server, 'NS', messages)) return;
      const response = responses[i];
      if (!response) {
        messages.push({ tag: 'NS_NO_RESPONSE', args: { ns: server.toString() } });
        return;
      }
      const names = nsNames(response, zone.name);
      messages.push(
        names.length > 0
          ? { tag: 'HAS_NAMESERVERS', args: { nsnlist: names.map((n) => n.toString()).join(','), ns: server.toString() } }
          : { tag: 'NS_FAILED', args: { ns: server.toString(), rcode: rcodeName(response.rcode) } },
      );
    });
    return messages;
  },
};

/** Basic03: only when no server gave the NS set, does any server answer A for www in the zone? */
export const basic03: TestCase = {
  id: 'Basic03',
  spec: `${specs}/basic03.md`,
  after: ['Basic00', 'Basic01', 'Basic02'],
  tags: ['HAS_A_RECORDS', 'NO_A_RECORDS', 'A_QUERY_NO_RESPONSES', 'HAS_NAMESERVER_NO_WWW_A_TEST', 'IPV4_ENABLED', 'IPV4_DISABLED', 'IPV6_ENABLED', 'IPV6_DISABLED'],
  precondition(context) {
    if (!delegationKnowable(context).run) return { run: false };
    const working = context.earlier.some((f) => f.module === 'BASIC' && f.tag === 'HAS_NAMESERVERS');
    if (!working) return { run: true };
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
      if (familyMessage(context, server, 'A', messages)) return;
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

export const basic: TestModule = { name: 'BASIC', testCases: [basic00, basic01, basic02, basic03] };
