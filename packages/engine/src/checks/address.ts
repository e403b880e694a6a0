// Address: the name servers' addresses themselves — outside special-purpose ranges, with reverse DNS
// that points back to the name server. Tags, arguments and levels follow the reference engine 9.0.1
// (specifications: docs/public/specifications/tests/Address-TP/ in zonemaster/zonemaster).
import { Rcode, RRType, recordIs, type Message as DnsMessage, type Name } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { reverseName } from '../net/ip-address.ts';
import { recordsFor } from '../net/response.ts';
import { compareServers, delegationWithAddresses, zoneNsWithAddresses } from '../zone/server-sets.ts';
import { addressCategory, type AddressCategory } from '../net/special-purpose-addresses.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Address-TP';

/** One server per address, the first seen (the reference walks Method 4, then Method 5). */
function onePerAddress(servers: Nameserver[]): Nameserver[] {
  const seen = new Set<string>();
  return servers.filter((server) => !seen.has(server.address) && seen.add(server.address));
}

async function delegationThenZone(context: TestContext): Promise<Nameserver[]> {
  const [glue, ns] = await Promise.all([context.zone.glue(), context.zone.ns()]);
  return onePerAddress([...glue, ...ns]);
}

/**
 * The PTR lookup of an address from the root. A CNAME in the answer (classless reverse delegation,
 * RFC 2317) is followed once, as the reference does; `name` is the name last asked.
 */
async function lookUpPtr(context: TestContext, address: string): Promise<{ response?: DnsMessage; name: Name }> {
  let name = reverseName(address);
  let { message: response } = await context.zone.recurse(name, RRType.PTR);
  const cname = response?.rcode === Rcode.NOERROR ? response.answer.find((rr) => recordIs(rr, RRType.CNAME)) : undefined;
  if (cname && recordIs(cname, RRType.CNAME)) {
    name = cname.rdata.target;
    ({ message: response } = await context.zone.recurse(name, RRType.PTR));
  }
  return { response, name };
}

/** Address01: every name server address is judged by the special-purpose registry; at least one must be globally reachable. */
export const address01: TestCase = {
  id: 'Address01',
  spec: `${specs}/address01.md`,
  tags: [
    'A01_ADDR_NOT_GLOBALLY_REACHABLE',
    'A01_DOCUMENTATION_ADDR',
    'A01_GLOBALLY_REACHABLE_ADDR',
    'A01_LOCAL_USE_ADDR',
    'A01_NO_GLOBALLY_REACHABLE_ADDR',
    'A01_NO_NAME_SERVERS_FOUND',
  ],
  async run({ zone }) {
    // The delegation's and the zone's own servers, as MethodsV2 finds them.
    const [delegated, own] = await Promise.all([delegationWithAddresses(zone), zoneNsWithAddresses(zone)]);
    const servers = [...(delegated ?? []), ...(own ?? [])].filter((item): item is Nameserver => 'address' in item);
    if (servers.length === 0) return [{ tag: 'A01_NO_NAME_SERVERS_FOUND', args: {} }];
    // Every name given for an address is listed with it.
    const byCategory = new Map<AddressCategory, Map<string, Nameserver>>();
    for (const server of servers) {
      const category = addressCategory(server.address);
      byCategory.set(category, (byCategory.get(category) ?? new Map<string, Nameserver>()).set(server.toString(), server));
    }
    const list = (category: AddressCategory): string | undefined => {
      const found = byCategory.get(category);
      return found && [...found.values()].sort(compareServers).map(String).join(';');
    };
    const messages: Message[] = [];
    const reachable = list('globally-reachable');
    messages.push(
      reachable
        ? { tag: 'A01_GLOBALLY_REACHABLE_ADDR', args: { ns_list: reachable } }
        : { tag: 'A01_NO_GLOBALLY_REACHABLE_ADDR', args: {} },
    );
    const others = [
      ['documentation', 'A01_DOCUMENTATION_ADDR'],
      ['local-use', 'A01_LOCAL_USE_ADDR'],
      ['not-globally-reachable', 'A01_ADDR_NOT_GLOBALLY_REACHABLE'],
    ] as const;
    for (const [category, tag] of others) {
      const nsList = list(category);
      if (nsList) messages.push({ tag, args: { ns_list: nsList } });
    }
    return messages;
  },
};

export const address02: TestCase = {
  id: 'Address02',
  spec: `${specs}/address02.md`,
  tags: ['NAMESERVER_IP_WITHOUT_REVERSE', 'NAMESERVERS_IP_WITH_REVERSE', 'NO_RESPONSE_PTR_QUERY'],
  async run(context) {
    const servers = await delegationThenZone(context);
    const lookups = await Promise.all(servers.map((server) => lookUpPtr(context, server.address)));
    const messages: Message[] = [];
    servers.forEach((server, i) => {
      const { response, name } = lookups[i];
      if (!response) messages.push({ tag: 'NO_RESPONSE_PTR_QUERY', args: { domain: name.toString() } });
      else if (response.rcode !== Rcode.NOERROR || !response.answer.some((rr) => rr.type === RRType.PTR)) {
        messages.push({ tag: 'NAMESERVER_IP_WITHOUT_REVERSE', args: { nsname: server.nameText, ns_ip: server.address } });
      }
    });
    if (servers.length > 0 && messages.length === 0) messages.push({ tag: 'NAMESERVERS_IP_WITH_REVERSE', args: {} });
    return messages;
  },
};

export const address03: TestCase = {
  id: 'Address03',
  spec: `${specs}/address03.md`,
  tags: ['NAMESERVER_IP_WITHOUT_REVERSE', 'NAMESERVER_IP_PTR_MISMATCH', 'NAMESERVER_IP_PTR_MATCH', 'NO_RESPONSE_PTR_QUERY'],
  after: ['Address02'],
  // As in the reference: only when Address02 found a PTR for every address.
  precondition: ({ earlier }) => ({ run: earlier.some((f) => f.testcase === 'Address02' && f.tag === 'NAMESERVERS_IP_WITH_REVERSE') }),
  async run(context) {
    const servers = onePerAddress(await context.zone.ns());
    const lookups = await Promise.all(servers.map((server) => lookUpPtr(context, server.address)));
    const messages: Message[] = [];
    servers.forEach((server, i) => {
      const { response, name } = lookups[i];
      if (!response) {
        messages.push({ tag: 'NO_RESPONSE_PTR_QUERY', args: { domain: name.toString() } });
        return;
      }
      const ptrs = recordsFor(response, RRType.PTR, name).flatMap((rr) => (recordIs(rr, RRType.PTR) ? [rr.rdata.target] : []));
      if (response.rcode !== Rcode.NOERROR || ptrs.length === 0) {
        messages.push({ tag: 'NAMESERVER_IP_WITHOUT_REVERSE', args: { nsname: server.nameText, ns_ip: server.address } });
      } else if (!ptrs.some((target) => target.equals(server.name))) {
        messages.push({
          tag: 'NAMESERVER_IP_PTR_MISMATCH',
          args: { nsname: server.nameText, ns_ip: server.address, names: ptrs.map((t) => t.toString()).join('/') },
        });
      }
    });
    if (servers.length > 0 && messages.length === 0) messages.push({ tag: 'NAMESERVER_IP_PTR_MATCH', args: {} });
    return messages;
  },
};

// In order, as the reference runs them: Address01's questions (a server's own address, asked of it)
// are answered before Address02's parent lookup may find that server silent.
export const address: TestModule = { name: 'ADDRESS', inOrder: true, testCases: [address01, address02, address03] };
