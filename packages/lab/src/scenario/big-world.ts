// A generated world for batch-scale runs: `big:N` is the zone big.test. with N delegated children
// spread over two pairs of name servers, a few per cent of them broken in ways the catalogue knows.
// Unsigned children are written as plain zone text (no BIND tool per zone, which would take minutes
// at 10,000); only a few fixed children are signed, through the normal build.
import { scenarioSchema, type ScenarioFile } from './scenario-format.ts';

export const bigWorldOrigin = 'big.test.';
export const defaultBigChildren = 10_000;
/** Children a generated world may have: BIND's memory, not the generator, is the limit. */
const maxBigChildren = 200_000;

/** What is wrong with a child: the catalogue's lame-delegation, basic-silent, dnssec-ds-unsigned and dnssec-bogus-signatures. */
export type BigChildKind = 'healthy' | 'lame' | 'silent' | 'ds-unsigned' | 'bogus-signed';

export interface BigChild {
  /** Fully qualified, lower case, with the final dot. */
  name: string;
  kind: BigChildKind;
  /** The name servers the parent delegates it to. */
  ns: string[];
  /** Those that serve it (a lame child's second server does not). */
  servedBy: string[];
}

/** A zone the build writes as it is: full zone text with $ORIGIN, served by the named servers. */
export interface BulkZone {
  origin: string;
  servers: string[];
  text: string;
}

// Per hundred children: two lame, one silent, one with a DS but served unsigned (4 %).
const brokenPerHundred: Record<number, BigChildKind> = { 17: 'lame', 53: 'lame', 31: 'silent', 71: 'ds-unsigned' };
/** Signed with spoilt signatures, through dnssec-signzone: a fixed few, whatever N is. */
const signedBogus = ['bogus-1', 'bogus-2', 'bogus-3'];

const servers = {
  ns1: { name: 'ns1.big.test.', addresses: ['192.0.2.241', '2001:db8:2400::1'] },
  ns2: { name: 'ns2.big.test.', addresses: ['192.0.2.242', '2001:db8:2400::2'] },
  ns3: { name: 'ns3.big.test.', addresses: ['192.0.2.243', '2001:db8:2400::3'] },
  ns4: { name: 'ns4.big.test.', addresses: ['192.0.2.244', '2001:db8:2400::4'] },
  // Drops every NS query, as basic-silent's only server does.
  ns5: { name: 'ns5.big.test.', addresses: ['192.0.2.245'], behaviour: { drop: ['NS'] } },
};

/** `big` or `big:N` (N children, 1 to 200,000); undefined for any other name. */
export function bigWorldSize(name: string): number | undefined {
  const match = /^big(?::(\d+))?$/.exec(name);
  if (match === null) return undefined;
  const n = match[1] === undefined ? defaultBigChildren : Number(match[1]);
  if (!Number.isSafeInteger(n) || n < 1 || n > maxBigChildren)
    throw new RangeError(`big:N takes 1 to ${maxBigChildren} children, not ${match[1]}`);
  return n;
}

/** The N generated children (without the fixed signed ones), in order, with what is wrong with each. */
export function bigChildren(n: number): BigChild[] {
  const width = String(n).length;
  return Array.from({ length: n }, (_, i) => {
    const kind = brokenPerHundred[i % 100] ?? 'healthy';
    // Alternate pairs of servers, so each pair serves half the children.
    const pair = i % 2 === 0 ? [servers.ns1.name, servers.ns2.name] : [servers.ns3.name, servers.ns4.name];
    const ns = kind === 'silent' ? [servers.ns5.name] : pair;
    // Lame: delegated to both of the pair, served by the first only (the other answers REFUSED).
    return { name: `d${String(i + 1).padStart(width, '0')}.${bigWorldOrigin}`, kind, ns, servedBy: kind === 'lame' ? [pair[0]] : ns };
  });
}

/** Every child of a big:N world, the signed bogus ones included. */
export function bigWorldDomains(n: number): BigChild[] {
  const ns = [servers.ns3.name, servers.ns4.name];
  return [
    ...bigChildren(n),
    ...signedBogus.map((label) => ({ name: `${label}.${bigWorldOrigin}`, kind: 'bogus-signed' as const, ns, servedBy: ns })),
  ];
}

const soa = '@ SOA ns1.big.test. hostmaster.big.test. 2024010101 21600 3600 1209600 3600';

function childText(origin: string, ns: string[]): string {
  return `$ORIGIN ${origin}\n$TTL 3600\n${soa}\n${ns.map((name) => `@ NS ${name}`).join('\n')}\n@ MX 10 mail\nmail A 192.0.2.25\nwww A 192.0.2.80\n`;
}

/** A DS that names no key the child has (the child is served unsigned). */
function orphanDs(origin: string, index: number): string {
  const digest = Buffer.alloc(32, index % 251)
    .toString('hex')
    .toUpperCase();
  return `${origin} 3600 IN DS ${10_000 + (index % 50_000)} 13 2 ${digest}`;
}

/** The world as a scenario (extending base.yaml) plus the children the build writes as they are. */
export function bigWorld(n: number): { file: ScenarioFile; bulkZones: BulkZone[] } {
  const delegations: string[] = [];
  const bulkZones: BulkZone[] = [];
  bigChildren(n).forEach((child, index) => {
    for (const name of child.ns) delegations.push(`${child.name} NS ${name}`);
    if (child.kind === 'ds-unsigned') delegations.push(orphanDs(child.name, index));
    bulkZones.push({ origin: child.name, servers: child.servedBy, text: childText(child.name, child.ns) });
  });
  const signed = signedBogus.map((label) => ({
    origin: `${label}.${bigWorldOrigin}`,
    servers: [servers.ns3.name, servers.ns4.name],
    text: `${soa}\n@ NS ns3.big.test.\n@ NS ns4.big.test.\n@ MX 10 mail\nmail A 192.0.2.25\nwww A 192.0.2.80\n`,
    // As dnssec-bogus-signatures: the RRSIGs over the DNSKEY and SOA RRsets do not verify.
    dnssec: { spoilRrsigs: [{ type: 'DNSKEY' }, { type: 'SOA' }] },
  }));
  // Through the schema, so the generated world gets the defaults a file would.
  const file = scenarioSchema.parse({
    description: `big.test. with ${n} delegated children (4 % lame, silent or with a DS but unsigned) and ${signedBogus.length} signed with bogus signatures`,
    domain: bigWorldOrigin,
    extends: 'base.yaml',
    servers: Object.values(servers),
    zones: [
      {
        origin: bigWorldOrigin,
        servers: [servers.ns1.name, servers.ns2.name],
        text: `${soa}\n@ NS ns1\n@ NS ns2\n${delegations.join('\n')}\n`,
      },
      ...signed,
    ],
  });
  return { file, bulkZones };
}
