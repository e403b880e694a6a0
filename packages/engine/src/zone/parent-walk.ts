// The walk from the root down to a zone that the reference (9.0.1) makes in Basic01 and again to find
// the parent's name servers (MethodsV2): each zone's servers are asked whether they serve it (SOA and
// NS with authority), then, label by label towards the zone, where the tree ends or refers elsewhere.
// Servers named on the way are asked in turn. The result says, per server, where it stopped.
import { Name, Rcode, RRType, recordIs, type Message as DnsMessage } from '@app/dns';
import type { Message } from '../finding.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { addressesIn, displayName, nsNames, recordsFor, recordsOfType, responseKind } from '../net/response.ts';
import type { Resolution } from '../resolver/resolver.ts';

/** What the walk asks of the zone it walks to (tested-zone.ts's Zone gives it; declared here so the walk does not import the zone that starts it). */
export interface WalkTarget {
  readonly name: Name;
  readonly rootServers: Nameserver[];
  recurse(name: Name, type: number): Promise<Resolution>;
  server(name: Name, address: string): Nameserver;
  familyEnabled(family: 4 | 6): boolean;
}

export type WalkEnd = 'delegation' | 'soa' | 'nxdomain' | 'cname' | 'cname-referral' | 'nodata' | 'dname';

/** What one server said: its findings (family switches, zone errors), and where it stopped, if it did. */
export interface ServerWalk {
  server: Nameserver;
  messages: Message[];
  /** The enclosing zone it answered for and how the zone looked there; none when it failed. */
  verdict?: { parent: string; kind: WalkEnd; dname?: string };
}

interface Step {
  messages: Message[];
  verdict?: ServerWalk['verdict'];
  /** Servers of zones further down, in the order named. */
  servers: [Name, Nameserver][];
}

const isAuthNoError = (response: DnsMessage | undefined): response is DnsMessage =>
  response !== undefined && response.rcode === Rcode.NOERROR && response.aa;

/** An authoritative NOERROR answer with exactly one SOA for the name. */
const hasZoneSoa = (response: DnsMessage | undefined, name: Name): boolean =>
  isAuthNoError(response) && recordsFor(response, RRType.SOA, name, ['answer']).length === 1;

/** An authoritative NOERROR answer whose NS records, at least one, are all for the name. */
function hasZoneNs(response: DnsMessage | undefined, name: Name): boolean {
  if (!isAuthNoError(response)) return false;
  const all = recordsOfType(response, RRType.NS, ['answer']).length;
  return all > 0 && all === recordsFor(response, RRType.NS, name, ['answer']).length;
}

/** Name servers a response names for `owner` (with the section's glue, else looked up), as servers of that zone. */
async function namedServers(
  zone: WalkTarget,
  response: DnsMessage,
  owner: Name,
  section: 'answer' | 'authority',
): Promise<[Name, Nameserver][]> {
  const names = nsNames(response, owner, [section]);
  const perName = await Promise.all(
    names.map(async (nsName) => {
      const glue = addressesIn(response, nsName, ['additional']);
      if (glue.length > 0) return glue;
      const lookups = await Promise.all([RRType.A, RRType.AAAA].map((type) => zone.recurse(nsName, type)));
      return lookups.flatMap(({ message }) => (message?.rcode === Rcode.NOERROR ? addressesIn(message, nsName) : []));
    }),
  );
  return names.flatMap((nsName, i) => perName[i].map((address): [Name, Nameserver] => [owner, zone.server(nsName, address)]));
}

async function walkFrom(zone: WalkTarget, zoneName: Name, server: Nameserver): Promise<Step> {
  const target = zone.name;
  const messages: Message[] = [];
  const servers: [Name, Nameserver][] = [];
  const zoneError = (name: Name, rrtype: string): Step => {
    messages.push({ tag: 'B01_SERVER_ZONE_ERROR', args: { query_name: displayName(name), rrtype, ns: server.toString() } });
    return { messages, servers };
  };
  const enabled = zone.familyEnabled(server.family);
  for (const rrtype of ['SOA', 'NS', 'DNAME'])
    messages.push({ tag: `IPV${server.family}_${enabled ? 'ENABLED' : 'DISABLED'}`, args: { ns: server.toString(), rrtype } });
  if (!enabled) return { messages, servers };
  if (!hasZoneSoa(await server.query(zoneName, RRType.SOA, {}, true), zoneName)) return zoneError(zoneName, 'SOA');
  if (!hasZoneNs(await server.query(zoneName, RRType.NS, {}, true), zoneName)) return zoneError(zoneName, 'NS');

  let parent = displayName(zoneName);
  for (let depth = zoneName.labelCount + 1; depth <= target.labelCount; depth++) {
    const name = Name.fromLabels(target.labels.slice(-depth));
    const isTarget = depth === target.labelCount;
    const soa = await server.query(name, RRType.SOA, {}, true);
    if (!soa) return zoneError(name, 'SOA');
    const ends = (kind: WalkEnd, dname?: string): Step => ({ messages, servers, verdict: { parent, kind, ...(dname && { dname }) } });
    const referral = responseKind(soa) === 'referral';
    if (hasZoneSoa(soa, name)) {
      if (isTarget) return ends('soa');
      // The same server serves a zone further down: go on from there.
      const ns = await server.query(name, RRType.NS, {}, true);
      if (!hasZoneNs(ns, name)) return zoneError(name, 'NS');
      servers.push(...(await namedServers(zone, ns!, name, 'answer')));
      parent = displayName(name);
      continue;
    }
    if (soa.rcode === Rcode.NXDOMAIN && soa.aa) return ends('nxdomain');
    if (referral && recordsFor(soa, RRType.NS, name, ['authority']).length > 0) {
      if (isTarget) return ends('delegation');
      servers.push(...(await namedServers(zone, soa, name, 'authority')));
      return { messages, servers };
    }
    if (isAuthNoError(soa)) {
      // An empty non-terminal or other name inside the zone: one label further down.
      if (!isTarget) continue;
      if (recordsFor(soa, RRType.CNAME, target, ['answer']).length > 0) return ends('cname');
      const dname = await server.query(target, RRType.DNAME);
      const dnames = isAuthNoError(dname) ? recordsFor(dname, RRType.DNAME, target, ['answer']) : [];
      const [only] = dnames;
      if (dnames.length === 1 && recordIs(only, RRType.DNAME)) return ends('dname', only.rdata.target.toString());
      return ends('nodata');
    }
    if (referral && recordsFor(soa, RRType.CNAME, target, ['answer']).length > 0) return ends('cname-referral');
    return zoneError(name, 'SOA');
  }
  return { messages, servers };
}

/**
 * Walks from the root to `zone`. Zone by zone in the order found, each server once per address; a
 * zone's servers are asked at once and their results taken in order, which is what the
 * reference's one-by-one walk gives.
 */
export async function walkToZone(zone: WalkTarget): Promise<ServerWalk[]> {
  const walks: ServerWalk[] = [];
  const zoneServers = new Map<string, Nameserver[]>([[Name.root.key(), zone.rootServers]]);
  const queue: Name[] = [Name.root];
  const queued = new Set<string>([Name.root.key()]);
  for (let next = queue.shift(); next; next = queue.shift()) {
    const handled = new Set<string>();
    const servers = (zoneServers.get(next.key()) ?? []).filter((server) => !handled.has(server.address) && handled.add(server.address));
    const steps = await Promise.all(servers.map((server) => walkFrom(zone, next, server)));
    steps.forEach((step, i) => {
      walks.push({ server: servers[i], messages: step.messages, ...(step.verdict && { verdict: step.verdict }) });
      for (const [zoneName, server] of step.servers) {
        const key = zoneName.key();
        zoneServers.set(key, [...(zoneServers.get(key) ?? []), server]);
        if (!queued.has(key)) {
          queued.add(key);
          queue.push(zoneName);
        }
      }
    });
  }
  return walks;
}
