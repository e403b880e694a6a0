// Zone: do the SOA, MX and SPF records make sense? The MNAME names a working primary in the NS set, the
// SOA timers are within the profile's bounds, MNAME and MX targets are host names with addresses, the
// servers agree on MX (or a Null MX), each answers with exactly one SOA, and they publish one SPF
// policy that parses. Tags and levels follow the reference engine 9.0 (specifications:
// docs/public/specifications/tests/Zone-TP/ in zonemaster/zonemaster). As in the reference, Zone09
// runs only when Zone08 got an MX answer, and Zone10 and Zone11 only when Zone02–07 got the SOA;
// every test case starts after the modules the reference runs before Zone, so a server found silent
// there is silent here too.
import { Name, Rcode, RRType, recordIs, type Message as DnsMessage, type SoaData } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import { lookupThroughAlias } from '../net/alias-lookup.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { inZoneAddresses, serverSets, withDelegationGlue } from '../zone/server-sets.ts';
import { rcodeName, recordsFor, recordsOfType, type Section } from '../net/response.ts';
import { mailTargetMessages, type MxOutcome } from '../rules/mail-targets.ts';
import { isNullSpfPolicy, isSpfPolicy, spfSyntaxOk, txtText } from '../rules/spf.ts';
import { nameText } from '../rules/name-syntax.ts';
import {
  expireMessages,
  minimumMessages,
  refreshMessages,
  refreshRetryMessages,
  retryMessages,
  serialGreater,
  timerThresholds,
  type TimerThresholds,
} from '../rules/soa.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Zone-TP';

const noSoa: Message = { tag: 'NO_RESPONSE_SOA_QUERY', args: {} };

function enabled(context: TestContext, server: Nameserver): boolean {
  return server.family === 4 ? context.profile.net.ipv4 : context.profile.net.ipv6;
}

function soaRecords(response: DnsMessage, owner: Name, sections?: readonly Section[]): SoaData[] {
  return recordsFor(response, RRType.SOA, owner, sections).flatMap((rr) => (recordIs(rr, RRType.SOA) ? [rr.rdata] : []));
}

/** The message for a server whose IP family the profile turns off (it is not asked). */
const disabledMessage = (server: Nameserver, rrtype: string): Message => ({
  tag: `IPV${server.family}_DISABLED`,
  args: { ns: server.toString(), rrtype },
});

/**
 * The SOA from the first of the zone's own servers that gives one with AA (shared by Zone02–07), and
 * a message for each server passed over because its IP family is off.
 */
async function zoneSoa(context: TestContext): Promise<{ soa?: SoaData; disabled: Message[] }> {
  const disabled: Message[] = [];
  for (const server of await context.zone.ns()) {
    if (!enabled(context, server)) {
      disabled.push(disabledMessage(server, 'SOA'));
      continue;
    }
    const response = await server.query(context.zone.name, RRType.SOA);
    const [soa] = response?.aa ? recordsOfType(response, RRType.SOA, ['answer']) : [];
    if (soa && recordIs(soa, RRType.SOA)) return { soa: soa.rdata, disabled };
  }
  return { disabled };
}

/** Zone02–06: one SOA timer rule, applied to the zone's SOA. */
function timerCase(id: string, tags: string[], rule: (soa: SoaData, t: TimerThresholds) => Message[]): TestCase {
  return {
    id,
    spec: `${specs}/${id.toLowerCase()}.md`,
    afterEarlierModules: true,
    tags: [...tags, 'NO_RESPONSE_SOA_QUERY', 'IPV4_DISABLED', 'IPV6_DISABLED'],
    async run(context) {
      const { soa, disabled } = await zoneSoa(context);
      return [...disabled, ...(soa ? rule(soa, timerThresholds(context.profile)) : [noSoa])];
    },
  };
}

/** The MNAME's addresses as the reference finds them: A and AAAA records of the name or of its alias in the same answer. */
async function mnameAddresses({ zone }: TestContext, name: Name): Promise<string[]> {
  const a = await zone.recurse(name, RRType.A);
  if (a.message?.rcode === Rcode.NXDOMAIN) return [];
  const aaaa = await zone.recurse(name, RRType.AAAA);
  const found: string[] = [];
  for (const { message } of [a, aaaa]) {
    if (!message) continue;
    const aliases = recordsFor(message, RRType.CNAME, name).flatMap((rr) => (recordIs(rr, RRType.CNAME) ? [rr.rdata.target] : []));
    const owners = [name, ...aliases];
    for (const rr of [...recordsOfType(message, RRType.A), ...recordsOfType(message, RRType.AAAA)]) {
      if ((recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA)) && owners.some((owner) => owner.equals(rr.name)))
        found.push(rr.rdata.address);
    }
  }
  return found.sort();
}

/** Zone01: the MNAME is a name server of the zone, resolves, and answers authoritatively with the newest serial. */
export const zone01: TestCase = {
  id: 'Zone01',
  spec: `${specs}/zone01.md`,
  afterEarlierModules: true,
  tags: [
    'Z01_MNAME_HAS_LOCALHOST_ADDR',
    'Z01_MNAME_IS_DOT',
    'Z01_MNAME_IS_LOCALHOST',
    'Z01_MNAME_IS_MASTER',
    'Z01_MNAME_MISSING_SOA_RECORD',
    'Z01_MNAME_NO_RESPONSE',
    'Z01_MNAME_NOT_AUTHORITATIVE',
    'Z01_MNAME_NOT_IN_NS_LIST',
    'Z01_MNAME_NOT_MASTER',
    'Z01_MNAME_NOT_RESOLVE',
    'Z01_MNAME_UNEXPECTED_RCODE',
    'IPV4_DISABLED',
    'IPV6_DISABLED',
  ],
  async run(context) {
    const { zone } = context;
    const all = await zone.allServers();
    const servers = all.filter((server) => enabled(context, server));
    const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.SOA)));
    const mnames = new Set<string>();
    const serials: number[] = [];
    const localhost: string[] = [];
    const dot: string[] = [];
    servers.forEach((server, i) => {
      const response = responses[i];
      if (!response || response.rcode !== 0 || !response.aa) return;
      for (const soa of soaRecords(response, zone.name)) {
        const mname = soa.mname.isRoot ? '' : nameText(soa.mname.toLowerCase());
        if (mname === 'localhost') localhost.push(server.address);
        else if (mname === '') dot.push(server.address);
        else mnames.add(mname);
        serials.push(soa.serial);
      }
    });
    const messages: Message[] = all.filter((server) => !enabled(context, server)).map((server) => disabledMessage(server, 'SOA'));
    if (localhost.length > 0) messages.push({ tag: 'Z01_MNAME_IS_LOCALHOST', args: { ns_ip_list: localhost.join(';') } });
    if (dot.length > 0) messages.push({ tag: 'Z01_MNAME_IS_DOT', args: { ns_ip_list: dot.join(';') } });

    const nsNames = new Set((await zone.childNsNames()).map(nameText));
    const mnameSerials = new Map<string, Map<string, number | undefined>>();
    // As in the reference, once one MNAME had an address a later one without any is not reported.
    let foundAddress = false;
    let foundSerial = false;
    for (const mname of [...mnames].sort()) {
      if (!nsNames.has(mname)) messages.push({ tag: 'Z01_MNAME_NOT_IN_NS_LIST', args: { nsname: mname } });
      const name = Name.fromString(`${mname}.`);
      const addresses = await mnameAddresses(context, name);
      foundAddress ||= addresses.length > 0;
      if (!foundAddress) {
        messages.push({ tag: 'Z01_MNAME_NOT_RESOLVE', args: { nsname: mname } });
        continue;
      }
      const perAddress = new Map<string, number | undefined>();
      mnameSerials.set(mname, perAddress);
      // Every address at once: a silent one costs its timeout only once.
      const unique = [...new Set(addresses)];
      const servers = unique.map((address) => (address === '127.0.0.1' || address === '::1' ? undefined : zone.server(name, address)));
      const responses = await Promise.all(
        servers.map((server) => (server && enabled(context, server) ? server.query(zone.name, RRType.SOA) : Promise.resolve(undefined))),
      );
      unique.forEach((address, i) => {
        perAddress.set(address, undefined);
        const server = servers[i];
        const response = responses[i];
        if (!server) messages.push({ tag: 'Z01_MNAME_HAS_LOCALHOST_ADDR', args: { nsname: mname, ns_ip: address } });
        if (server && !enabled(context, server)) messages.push(disabledMessage(server, 'SOA'));
        if (!server || !enabled(context, server)) return;
        const ns = server.toString();
        const [soa] = response ? soaRecords(response, zone.name, ['answer']) : [];
        if (!response) messages.push({ tag: 'Z01_MNAME_NO_RESPONSE', args: { ns } });
        else if (response.rcode !== 0) messages.push({ tag: 'Z01_MNAME_UNEXPECTED_RCODE', args: { ns, rcode: rcodeName(response.rcode) } });
        else if (!soa) messages.push({ tag: 'Z01_MNAME_MISSING_SOA_RECORD', args: { ns } });
        else if (!response.aa) messages.push({ tag: 'Z01_MNAME_NOT_AUTHORITATIVE', args: { ns } });
        else {
          foundSerial = true;
          perAddress.set(address, soa.serial);
        }
      });
    }
    if (!foundSerial) return messages;

    const seenSerials = [...new Set(serials)];
    const notMaster: { ns: string; serial: number }[] = [];
    const master: string[] = [];
    for (const [mname, perAddress] of mnameSerials) {
      for (const [address, serial] of perAddress) {
        if (serial === undefined) continue;
        if (seenSerials.some((other) => serialGreater(other, serial))) notMaster.push({ ns: `${mname}/${address}`, serial });
        else master.push(`${mname}/${address}`);
      }
    }
    if (notMaster.length > 0) {
      messages.push({
        tag: 'Z01_MNAME_NOT_MASTER',
        args: {
          ns_list: notMaster
            .map((n) => n.ns)
            .sort()
            .join(';'),
          soaserial: Math.max(...notMaster.map((n) => n.serial)),
          soaserial_list: seenSerials.join(';'),
        },
      });
    }
    if (master.length > 0) messages.push({ tag: 'Z01_MNAME_IS_MASTER', args: { ns_list: master.sort().join(';') } });
    return messages;
  },
};

export const zone02 = timerCase('Zone02', ['REFRESH_MINIMUM_VALUE_LOWER', 'REFRESH_MINIMUM_VALUE_OK'], refreshMessages);
export const zone03 = timerCase('Zone03', ['REFRESH_LOWER_THAN_RETRY', 'REFRESH_HIGHER_THAN_RETRY'], refreshRetryMessages);
export const zone04 = timerCase('Zone04', ['RETRY_MINIMUM_VALUE_LOWER', 'RETRY_MINIMUM_VALUE_OK'], retryMessages);
export const zone05 = timerCase(
  'Zone05',
  ['EXPIRE_MINIMUM_VALUE_LOWER', 'EXPIRE_LOWER_THAN_REFRESH', 'EXPIRE_MINIMUM_VALUE_OK'],
  expireMessages,
);
export const zone06 = timerCase(
  'Zone06',
  ['SOA_DEFAULT_TTL_MAXIMUM_VALUE_HIGHER', 'SOA_DEFAULT_TTL_MAXIMUM_VALUE_LOWER', 'SOA_DEFAULT_TTL_MAXIMUM_VALUE_OK'],
  minimumMessages,
);

/** Zone07: the MNAME is not an alias and has an address. */
export const zone07: TestCase = {
  id: 'Zone07',
  spec: `${specs}/zone07.md`,
  afterEarlierModules: true,
  tags: ['MNAME_IS_CNAME', 'MNAME_IS_NOT_CNAME', 'NO_RESPONSE_SOA_QUERY', 'MNAME_HAS_NO_ADDRESS', 'IPV4_DISABLED', 'IPV6_DISABLED'],
  async run(context) {
    const { soa, disabled } = await zoneSoa(context);
    if (!soa) return [...disabled, noSoa];
    const mname = nameText(soa.mname);
    const messages: Message[] = [...disabled];
    let addresses = 0;
    for (const type of [RRType.A, RRType.AAAA]) {
      const { message, owner } = await lookupThroughAlias(context.zone, soa.mname, type);
      if (!message) continue;
      // A target looked up again makes the MNAME an alias, and the target's records count as its
      // addresses; a target answered together with the alias does not count (as in the reference).
      const aliased = !owner.equals(soa.mname);
      if (recordsFor(message, type, soa.mname).length > 0 || (aliased && recordsFor(message, type, owner).length > 0)) addresses++;
      messages.push({
        tag: aliased || recordsFor(message, RRType.CNAME, soa.mname).length > 0 ? 'MNAME_IS_CNAME' : 'MNAME_IS_NOT_CNAME',
        args: { mname },
      });
    }
    if (addresses === 0) messages.push({ tag: 'MNAME_HAS_NO_ADDRESS', args: { mname } });
    return messages;
  },
};

/** Zone08: no MX target is an alias (RFC 2181 §10.3). */
export const zone08: TestCase = {
  id: 'Zone08',
  spec: `${specs}/zone08.md`,
  afterEarlierModules: true,
  tags: ['MX_RECORD_IS_CNAME', 'MX_RECORD_IS_NOT_CNAME', 'NO_RESPONSE_MX_QUERY'],
  async run({ zone }) {
    const response = await zone.queryAuth(zone.name, RRType.MX);
    if (!response) return [{ tag: 'NO_RESPONSE_MX_QUERY', args: {} }];
    const messages: Message[] = [];
    for (const rr of recordsFor(response, RRType.MX, zone.name)) {
      if (!recordIs(rr, RRType.MX)) continue;
      const target = await zone.queryAuth(rr.rdata.exchange, RRType.CNAME);
      if (target)
        messages.push({
          tag: recordsFor(target, RRType.CNAME, rr.rdata.exchange).length > 0 ? 'MX_RECORD_IS_CNAME' : 'MX_RECORD_IS_NOT_CNAME',
          args: {},
        });
    }
    return messages;
  },
};

/** What one server answers for MX, once it has answered SOA with authority. */
async function mxOutcome({ zone }: TestContext, server: Nameserver): Promise<MxOutcome | undefined> {
  const soa = await server.query(zone.name, RRType.SOA);
  if (!soa || soa.rcode !== 0 || !soa.aa || recordsFor(soa, RRType.SOA, zone.name).length === 0) return undefined;
  const response = await server.query(zone.name, RRType.MX);
  const ns = server.toString();
  if (!response) return { ns, kind: 'no-response' };
  if (response.rcode !== 0) return { ns, kind: 'rcode', rcode: rcodeName(response.rcode) };
  if (!response.aa) return { ns, kind: 'non-authoritative' };
  const records = recordsFor(response, RRType.MX, zone.name, ['answer']).flatMap((rr) =>
    recordIs(rr, RRType.MX)
      ? [{ preference: rr.rdata.preference, exchange: rr.rdata.exchange.isRoot ? '.' : `${nameText(rr.rdata.exchange.toLowerCase())}.` }]
      : [],
  );
  return { ns, kind: 'mx', records };
}

/**
 * The servers Zone09 and Zone11 ask, as engine 9.0 lists them: the delegation's and the zone's, a
 * name inside the zone at the addresses the delegated servers give it with authority (which may
 * differ from the glue). The delegation's come first (each part in text order), since the
 * reference keeps the first server it meets at each address.
 */
async function delegationAndZoneServers(context: TestContext): Promise<Nameserver[]> {
  const { zone } = context;
  const [all, delegation, names] = await Promise.all([zone.allServers(), zone.glue(), zone.nsNames()]);
  const inZone = names.filter((name) => name.isSubdomainOf(zone.name));
  const asked = delegation.filter((server) => enabled(context, server));
  const found = await inZoneAddresses(zone, inZone, asked, { followCnames: false });
  const merged = await withDelegationGlue(zone, [...all, ...found]);
  const delegated = new Set((await serverSets(zone)).delegation.servers.map((server) => server.toString()));
  const isDelegated = (server: Nameserver): boolean => delegated.has(server.toString());
  return [...merged.filter(isDelegated), ...merged.filter((server) => !isDelegated(server))];
}

/** The zone's servers once per address (the first one listed), and a message for each whose IP family is off. */
function serversByAddress(
  context: TestContext,
  servers: readonly Nameserver[],
  rrtypes: readonly string[],
): { servers: Nameserver[]; disabled: Message[] } {
  const seen = new Set<string>();
  const unique = servers.filter((server) => !seen.has(server.address) && seen.add(server.address));
  return {
    servers: unique.filter((server) => enabled(context, server)),
    disabled: unique
      .filter((server) => !enabled(context, server))
      .flatMap((server) => rrtypes.map((rrtype) => ({ tag: `IPV${server.family}_DISABLED`, args: { ns: server.toString(), rrtype } }))),
  };
}

/** The root, a TLD or a zone under .arpa: not expected to send or receive mail. */
function zonePlace(context: TestContext): { isRoot: boolean; isTld: boolean; isArpa: boolean } {
  const { zone } = context;
  return { isRoot: zone.name.isRoot, isTld: zone.name.parent()?.isRoot === true, isArpa: /\.arpa$/i.test(zone.nameText) };
}

/** Zone09: the servers agree on the MX set; a Null MX is alone with preference 0; mail has an exchange. */
export const zone09: TestCase = {
  id: 'Zone09',
  spec: `${specs}/zone09.md`,
  afterEarlierModules: true,
  after: ['Zone08'],
  tags: [
    'Z09_ARPA_EMAIL_DOMAIN',
    'Z09_INCONSISTENT_MX',
    'Z09_INCONSISTENT_MX_DATA',
    'Z09_MISSING_MAIL_EXCHANGE',
    'Z09_MX_DATA',
    'Z09_MX_FOUND',
    'Z09_NON_AUTH_MX_RESPONSE',
    'Z09_NO_MX_FOUND',
    'Z09_NO_MX_FOUND_OR_EXPECTED',
    'Z09_NO_RESPONSE_MX_QUERY',
    'Z09_NO_SERVERS_MX_RESPONSE',
    'Z09_NULL_MX_NON_ZERO_PREF',
    'Z09_NULL_MX_WITH_OTHER_MX',
    'Z09_ROOT_EMAIL_DOMAIN',
    'Z09_TLD_EMAIL_DOMAIN',
    'Z09_UNEXPECTED_RCODE_MX',
    'Z09_VALID_NULL_MX',
    'IPV4_DISABLED',
    'IPV6_DISABLED',
  ],
  precondition: ({ earlier }) => ({ run: !earlier.some((f) => f.testcase === 'Zone08' && f.tag === 'NO_RESPONSE_MX_QUERY') }),
  async run(context) {
    const { servers, disabled } = serversByAddress(context, await delegationAndZoneServers(context), ['SOA', 'MX']);
    const outcomes = (await Promise.all(servers.map((server) => mxOutcome(context, server)))).filter((o) => o !== undefined);
    return [...disabled, ...mailTargetMessages(outcomes, zonePlace(context))];
  },
};

/** Zone10: every server answers the SOA query with exactly one SOA, owned by the zone. */
export const zone10: TestCase = {
  id: 'Zone10',
  spec: `${specs}/zone10.md`,
  afterEarlierModules: true,
  after: ['Zone02', 'Zone03', 'Zone04', 'Zone05', 'Zone06', 'Zone07'],
  tags: ['MULTIPLE_SOA', 'NO_RESPONSE', 'NO_SOA_IN_RESPONSE', 'ONE_SOA', 'WRONG_SOA', 'IPV4_DISABLED', 'IPV6_DISABLED'],
  precondition: ({ earlier }) => ({ run: !earlier.some((f) => f.module === 'ZONE' && f.tag === 'NO_RESPONSE_SOA_QUERY') }),
  async run(context) {
    const { zone } = context;
    const servers = await zone.allServers();
    const responses = await Promise.all(
      servers.map((server) => (enabled(context, server) ? server.query(zone.name, RRType.SOA) : Promise.resolve(undefined))),
    );
    const fqdn = zone.name.isRoot ? '.' : `${zone.nameText}.`;
    const messages: Message[] = servers.flatMap((server, i): Message[] => {
      if (!enabled(context, server)) return [disabledMessage(server, 'SOA')];
      const response = responses[i];
      const ns = server.toString();
      if (!response) return [{ tag: 'NO_RESPONSE', args: { ns } }];
      const soas = recordsOfType(response, RRType.SOA, ['answer']);
      if (soas.length === 0) return [{ tag: 'NO_SOA_IN_RESPONSE', args: { ns } }];
      if (soas.length > 1) return [{ tag: 'MULTIPLE_SOA', args: { ns, count: soas.length } }];
      const owner = soas[0].name.isRoot ? '.' : `${nameText(soas[0].name.toLowerCase())}.`;
      return owner === fqdn ? [] : [{ tag: 'WRONG_SOA', args: { ns, owner, name: fqdn } }];
    });
    return messages.length > 0 ? messages : [{ tag: 'ONE_SOA', args: {} }];
  },
};

/** Zone11: the servers publish one SPF policy, the same everywhere, and it parses (RFC 7208). */
export const zone11: TestCase = {
  id: 'Zone11',
  spec: `${specs}/zone11.md`,
  afterEarlierModules: true,
  after: ['Zone02', 'Zone03', 'Zone04', 'Zone05', 'Zone06', 'Zone07'],
  tags: [
    'Z11_DIFFERENT_SPF_POLICIES_FOUND',
    'Z11_INCONSISTENT_SPF_POLICIES',
    'Z11_NO_SPF_FOUND',
    'Z11_NO_SPF_NON_MAIL_DOMAIN',
    'Z11_NON_NULL_SPF_NON_MAIL_DOMAIN',
    'Z11_NULL_SPF_NON_MAIL_DOMAIN',
    'Z11_SPF_MULTIPLE_RECORDS',
    'Z11_SPF_SYNTAX_ERROR',
    'Z11_SPF_SYNTAX_OK',
    'Z11_UNABLE_TO_CHECK_FOR_SPF',
    'IPV4_DISABLED',
    'IPV6_DISABLED',
  ],
  precondition: ({ earlier }) => ({ run: !earlier.some((f) => f.module === 'ZONE' && f.tag === 'NO_RESPONSE_SOA_QUERY') }),
  async run(context) {
    const { zone } = context;
    const all = await delegationAndZoneServers(context);
    const { servers, disabled } = serversByAddress(context, all, ['TXT']);
    const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.TXT)));
    // Per address that answered with authority: the SPF policies among its TXT records.
    const policies = new Map<string, string[]>();
    servers.forEach((server, i) => {
      const response = responses[i];
      if (!response || response.rcode !== Rcode.NOERROR || !response.aa) return;
      const texts = recordsFor(response, RRType.TXT, zone.name).flatMap((rr) =>
        recordIs(rr, RRType.TXT) ? [txtText(rr.rdata.strings)] : [],
      );
      policies.set(server.address, texts.filter(isSpfPolicy));
    });
    // Every name of an address speaks for it.
    const namesAt = (address: string): string[] => all.filter((server) => server.address === address).map((server) => server.toString());
    const nsList = (addresses: Iterable<string>): string => [...addresses].flatMap(namesAt).sort().join(';');
    const byPolicies = new Map<string, string[]>();
    for (const [address, found] of policies) {
      const key = JSON.stringify([...found].sort());
      byPolicies.set(key, [...(byPolicies.get(key) ?? []), address]);
    }
    const domain = zone.nameText;
    const place = zonePlace(context);
    const nonMail = place.isRoot || place.isTld || place.isArpa;
    const messages: Message[] = [...disabled];
    if (policies.size === 0) messages.push({ tag: 'Z11_UNABLE_TO_CHECK_FOR_SPF', args: {} });
    else if ([...policies.values()].every((found) => found.length === 0))
      messages.push({ tag: nonMail ? 'Z11_NO_SPF_NON_MAIL_DOMAIN' : 'Z11_NO_SPF_FOUND', args: { domain } });
    else if (byPolicies.size > 1) {
      messages.push({ tag: 'Z11_INCONSISTENT_SPF_POLICIES', args: {} });
      for (const key of [...byPolicies.keys()].sort())
        messages.push({ tag: 'Z11_DIFFERENT_SPF_POLICIES_FOUND', args: { ns_list: nsList(byPolicies.get(key)!) } });
    } else {
      const multiple = [...policies].filter(([, found]) => found.length > 1).map(([address]) => address);
      const [policy] = [...policies.values()][0];
      if (multiple.length > 0) messages.push({ tag: 'Z11_SPF_MULTIPLE_RECORDS', args: { ns_list: nsList(multiple) } });
      else if (!spfSyntaxOk(policy)) messages.push({ tag: 'Z11_SPF_SYNTAX_ERROR', args: { ns_list: nsList(policies.keys()), domain } });
      else if (!nonMail) messages.push({ tag: 'Z11_SPF_SYNTAX_OK', args: { domain } });
      else
        messages.push({
          tag: isNullSpfPolicy(policy) ? 'Z11_NULL_SPF_NON_MAIL_DOMAIN' : 'Z11_NON_NULL_SPF_NON_MAIL_DOMAIN',
          args: { domain },
        });
    }
    return messages;
  },
};

export const zone: TestModule = {
  name: 'ZONE',
  testCases: [zone01, zone02, zone03, zone04, zone05, zone06, zone07, zone08, zone09, zone10, zone11],
};
