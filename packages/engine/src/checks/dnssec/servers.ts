// Which servers the module asks, and what they answer.
import { type Name, RRType, recordIs, type DsData, type Message as DnsMessage, type ResourceRecord } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestContext } from '../../framework/test-case.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';
import { withDelegationGlue } from '../../zone/server-sets.ts';
import { byText, recordsOfType } from '../../net/response.ts';
import type { Dnskey, Rrsig } from './records.ts';
import { dnskeysIn, rrsigsIn, dsIn, good, hasDo, dsKey } from './records.ts';

/** IPV4_/IPV6_DISABLED for a server of a family that is off, one per record type; true when it is off. */
export function familyOff(context: TestContext, server: Nameserver, rrtypes: readonly string[], into: Message[]): boolean {
  const enabled = server.family === 4 ? context.profile.net.ipv4 : context.profile.net.ipv6;
  if (enabled) return false;
  for (const rrtype of rrtypes) into.push({ tag: `IPV${server.family}_DISABLED`, args: { ns: server.toString(), rrtype } });
  return true;
}

export const byAddress = (servers: readonly Nameserver[]): Nameserver[] => {
  const seen = new Set<string>();
  return servers.filter((s) => !seen.has(s.address) && seen.add(s.address));
};

/** The zone's name servers (delegation and zone, Method 4 ∪ 5) whose family is on, once per address; the others reported. */
export async function childServers(
  context: TestContext,
  rrtypes: readonly string[],
  into: Message[],
  perAddress = true,
): Promise<Nameserver[]> {
  const all = await context.zone.allServers();
  return (perAddress ? byAddress(all) : all).filter((server) => !familyOff(context, server, rrtypes, into));
}

export async function parentServers(context: TestContext, into: Message[]): Promise<Nameserver[]> {
  const parent = await context.zone.parent();
  const sorted = [...(parent?.servers ?? [])].sort((a, b) => byText(a.toString(), b.toString()));
  return byAddress(sorted).filter((server) => !familyOff(context, server, ['DS'], into));
}

/** Servers grouped per address, in the order given: the reference asks each address once and names every server on it. */
export function perAddress(servers: readonly Nameserver[]): Nameserver[][] {
  const groups = new Map<string, Nameserver[]>();
  for (const server of servers) groups.set(server.address, [...(groups.get(server.address) ?? []), server]);
  return [...groups.values()];
}

/** DS records given for an undelegated test, which the reference puts in place of the parent's answer. */
export const givenDs = (context: TestContext): boolean => (context.zone.undelegated?.ds.length ?? 0) > 0;

/** The parent's name servers asked for DS, per address; none for the root or an undelegated test with name servers given. */
export async function parentGroups(context: TestContext): Promise<Nameserver[][]> {
  const { zone } = context;
  if (zone.name.isRoot || (zone.undelegated?.nameservers.length ?? 0) > 0) return [];
  const parent = await zone.parent();
  return perAddress([...(parent?.servers ?? [])].sort((a, b) => byText(a.toString(), b.toString())));
}

/** The zone's name servers (delegation and zone, Method 4 ∪ 5, the glue as given), per address. */
export const childGroups = async ({ zone }: TestContext): Promise<Nameserver[][]> =>
  perAddress(await withDelegationGlue(zone, await zone.allServers()));

/** The DS records the parent's servers give (DO set, TCP on truncation), without repeats; in an undelegated test, those given. */
export async function parentDsRecords(context: TestContext, into: Message[]): Promise<DsData[]> {
  const { zone } = context;
  if (zone.undelegated)
    return (await zone.dsFromParent()).map((d) => ({
      keyTag: d.keytag,
      algorithm: d.algorithm,
      digestType: d.digtype,
      digest: Buffer.from(d.digest, 'hex'),
    }));
  const servers = await parentServers(context, into);
  const responses = await Promise.all(servers.map((server) => server.query(zone.name, RRType.DS, { dnssec: true })));
  const found = new Map<string, DsData>();
  for (const response of responses) {
    if (!good(response) || !hasDo(response)) continue;
    for (const ds of dsIn(response, RRType.DS, zone.name)) found.set(dsKey(ds.rdata), ds.rdata);
  }
  return [...found.values()];
}

export const dnskeyQuery = (server: Nameserver, zone: Name): Promise<DnsMessage | undefined> =>
  server.query(zone, RRType.DNSKEY, { dnssec: true });

/** The rule DNSSEC08/09/10 share for the DNSKEY answer they verify with. */
export async function zoneKeysFrom(server: Nameserver, zone: Name): Promise<Dnskey[] | undefined> {
  const response = await dnskeyQuery(server, zone);
  if (!good(response)) return undefined;
  const keys = dnskeysIn(response, zone);
  return keys.length > 0 ? keys : undefined;
}

/** DNSKEY answers per server (Method 4 ∪ 5, every name/address), with NO_RESPONSE / NO_RESPONSE_DNSKEY for the others. */
export async function dnskeysPerServer(context: TestContext, messages: Message[]): Promise<Dnskey[][]> {
  const servers = await childServers(context, ['DNSKEY'], messages, false);
  const responses = await Promise.all(servers.map((server) => dnskeyQuery(server, context.zone.name)));
  return servers.flatMap((server, i) => {
    const response = responses[i];
    if (!response) {
      messages.push({ tag: 'NO_RESPONSE', args: { ns: server.toString() } });
      return [];
    }
    const keys = dnskeysIn(response);
    if (keys.length === 0) messages.push({ tag: 'NO_RESPONSE_DNSKEY', args: { ns: server.toString() } });
    return keys.length > 0 ? [keys] : [];
  });
}

export interface ChildKeySets {
  cds?: { records: ResourceRecord<DsData>[]; rrsigs: Rrsig[] };
  cdnskey?: { records: Dnskey[]; rrsigs: Rrsig[] };
  dnskey?: { records: Dnskey[]; rrsigs: Rrsig[] };
}

/** CDS, CDNSKEY and DNSKEY (DO set) per server address, each only when its answer was authoritative NOERROR. */
export async function childKeySets(
  context: TestContext,
  rrtypes: readonly string[],
  messages: Message[],
): Promise<Map<string, ChildKeySets>> {
  const { zone } = context;
  const out = new Map<string, ChildKeySets>();
  const servers = await childServers(context, rrtypes, messages);
  await Promise.all(
    servers.map(async (server) => {
      const sets: ChildKeySets = {};
      const [cds, cdnskey, dnskey] = await Promise.all(
        [RRType.CDS, RRType.CDNSKEY, RRType.DNSKEY].map((type) => server.query(zone.name, type, { dnssec: true })),
      );
      if (good(cds)) sets.cds = { records: dsIn(cds, RRType.CDS), rrsigs: rrsigsIn(cds) };
      if (good(cdnskey))
        sets.cdnskey = {
          records: recordsOfType(cdnskey, RRType.CDNSKEY, ['answer']).filter((rr): rr is Dnskey => recordIs(rr, RRType.CDNSKEY)),
          rrsigs: rrsigsIn(cdnskey),
        };
      if (good(dnskey)) sets.dnskey = { records: dnskeysIn(dnskey), rrsigs: rrsigsIn(dnskey) };
      out.set(server.address, sets);
    }),
  );
  return out;
}
