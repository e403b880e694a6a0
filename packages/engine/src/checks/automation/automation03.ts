// Automation03: the CSYNC record (RFC 7477): present on every server alike, its flags, its serial
// against each server's SOA serial, and the NS and glue a parent would copy from the child.
import { RRType, recordIs, typeToString, type Name } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';
import { nsNames, recordsFor } from '../../net/response.ts';
import { familyTags, good, hex, rrsigsIn } from '../dnssec/records.ts';
import { childServers } from '../dnssec/servers.ts';
import { spec } from './automation01.ts';
import { currentDs } from './child-answers.ts';
import { parseCsync, type Csync } from './csync.ts';

export const csyncTags = [
  'CSYNC_ABSENT',
  'CSYNC_PRESENT',
  'CSYNC_MALFORMED',
  'CSYNC_INCONSISTENT',
  'CSYNC_NOT_IMMEDIATE',
  'CSYNC_UNKNOWN_FLAGS',
  'CSYNC_UNKNOWN_TYPES',
  'CSYNC_SOA_BEHIND',
  'CSYNC_UNSIGNED',
  'CSYNC_INSECURE',
  'CSYNC_COPY',
] as const;

/** RFC 1982: whether serial `a` is behind serial `b`. */
export const serialBehind = (a: number, b: number): boolean => a !== b && (b - a) >>> 0 < 0x80000000;

interface ServerCsync {
  server: Nameserver;
  raw?: string;
  csync?: Csync;
  signed: boolean;
  soaSerial?: number;
}

const list = (servers: readonly ServerCsync[]): string => servers.map((s) => s.server.toString()).join(';');

/** The NS names and the in-zone glue (name/address) a parent would copy, as the first server answers them. */
async function copied(zone: Name, server: Nameserver, csync: Csync): Promise<{ ns: string; glue: string }> {
  const answer = await server.query(zone, RRType.NS);
  const names = good(answer) ? nsNames(answer, zone, ['answer']) : [];
  const glue: string[] = [];
  for (const type of [RRType.A, RRType.AAAA].filter((t) => csync.types.includes(t)))
    for (const name of names.filter((n) => n.isSubdomainOf(zone))) {
      const response = await server.query(name, type);
      if (!good(response)) continue;
      for (const rr of recordsFor(response, type, name, ['answer']))
        if (recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA)) glue.push(`${name.toString()}/${rr.rdata.address}`);
    }
  return { ns: csync.types.includes(RRType.NS) ? names.map(String).join(';') : '', glue: glue.join(';') };
}

export const automation03: TestCase = {
  id: 'Automation03',
  spec,
  tags: [...csyncTags, ...familyTags],
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const servers = await childServers(context, ['CSYNC'], messages);
    const answers: ServerCsync[] = await Promise.all(
      servers.map(async (server) => {
        const [csync, soa] = await Promise.all([
          server.query(zone.name, RRType.CSYNC, { dnssec: true }),
          server.query(zone.name, RRType.SOA),
        ]);
        const soaRecord = good(soa) ? recordsFor(soa, RRType.SOA, zone.name, ['answer']).find((rr) => recordIs(rr, RRType.SOA)) : undefined;
        const record = good(csync) ? recordsFor(csync, RRType.CSYNC, zone.name, ['answer'])[0] : undefined;
        const bytes = record?.rdata instanceof Uint8Array ? record.rdata : undefined;
        return {
          server,
          raw: bytes && hex(bytes),
          csync: bytes && parseCsync(bytes),
          signed: good(csync) && rrsigsIn(csync, 'answer', zone.name).some((s) => s.rdata.typeCovered === RRType.CSYNC),
          soaSerial: soaRecord && recordIs(soaRecord, RRType.SOA) ? soaRecord.rdata.serial : undefined,
        };
      }),
    );
    const having = answers.filter((a) => a.raw !== undefined);
    if (having.length === 0) return [...messages, { tag: 'CSYNC_ABSENT', args: {} }];
    const malformed = having.filter((a) => a.csync === undefined);
    if (malformed.length > 0) return [...messages, { tag: 'CSYNC_MALFORMED', args: { ns_list: list(malformed) } }];
    const counts = new Map<string, number>();
    for (const a of having) counts.set(a.raw!, (counts.get(a.raw!) ?? 0) + 1);
    const common = [...counts].sort((x, y) => y[1] - x[1])[0][0];
    const differing = answers.filter((a) => a.raw !== common);
    const first = having.find((a) => a.raw === common)!;
    const csync = first.csync!;
    const flags = [csync.immediate && 'immediate', csync.soaMinimum && 'soaminimum'].filter(Boolean).join(',') || '-';
    const findings: Message[] = [
      { tag: 'CSYNC_PRESENT', args: { serial: csync.serial, flags, types: csync.types.map(typeToString).join(' ') } },
    ];
    if (differing.length > 0) findings.push({ tag: 'CSYNC_INCONSISTENT', args: { ns_list: list(differing) } });
    if (!csync.immediate) findings.push({ tag: 'CSYNC_NOT_IMMEDIATE', args: {} });
    if (csync.otherFlags !== 0) findings.push({ tag: 'CSYNC_UNKNOWN_FLAGS', args: { flags: csync.otherFlags } });
    const unknown = csync.types.filter((t) => t !== RRType.NS && t !== RRType.A && t !== RRType.AAAA);
    if (unknown.length > 0) findings.push({ tag: 'CSYNC_UNKNOWN_TYPES', args: { types: unknown.map(typeToString).join(' ') } });
    if (csync.soaMinimum) {
      const behind = answers.filter((a) => a.soaSerial === undefined || serialBehind(a.soaSerial, csync.serial));
      if (behind.length > 0) findings.push({ tag: 'CSYNC_SOA_BEHIND', args: { serial: csync.serial, ns_list: list(behind) } });
    }
    const unsigned = having.filter((a) => !a.signed);
    if (unsigned.length > 0) findings.push({ tag: 'CSYNC_UNSIGNED', args: { ns_list: list(unsigned) } });
    else if ((await currentDs(context, messages)).length === 0) findings.push({ tag: 'CSYNC_INSECURE', args: {} });
    findings.push({ tag: 'CSYNC_COPY', args: await copied(zone.name, first.server, csync) });
    return [...messages, ...findings];
  },
};
