// What the module reads from the child's servers and the parent: the CDS, CDNSKEY and DNSKEY answers
// per server (name/address), and the DS RRset the parent serves with its TTL.
import { RRType, type DsData, type ResourceRecord } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestContext } from '../../framework/test-case.ts';
import { dsIn, good, hasDo } from '../dnssec/records.ts';
import { childKeySets, parentServers, type ChildKeySets } from '../dnssec/servers.ts';
import type { DsRecord } from './parent-ds.ts';

// A TTL for DS records given on the command line (an undelegated test), which carry none.
const givenDsTtl = 3600;

/** Each child server's CDS/CDNSKEY/DNSKEY answers, keyed "name/address" (undefined: no usable answer). */
export async function childAnswers(context: TestContext, messages: Message[]): Promise<Map<string, ChildKeySets | undefined>> {
  const byAddress = await childKeySets(context, ['CDS', 'CDNSKEY', 'DNSKEY'], messages);
  const servers = await context.zone.allServers();
  const out = new Map<string, ChildKeySets | undefined>();
  for (const [address, sets] of byAddress) {
    const server = servers.find((s) => s.address === address);
    out.set(server ? server.toString() : address, sets.cds && sets.cdnskey ? sets : undefined);
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

/** The DS RRset the parent's servers give (the first authoritative answer with DO), or those given for an undelegated test. */
export async function currentDs(context: TestContext, messages: Message[]): Promise<DsRecord[]> {
  const { zone } = context;
  if (zone.undelegated)
    return (await zone.dsFromParent()).map((d) => ({
      ttl: givenDsTtl,
      rdata: { keyTag: d.keytag, algorithm: d.algorithm, digestType: d.digtype, digest: Buffer.from(d.digest, 'hex') },
    }));
  if (zone.name.isRoot) return [];
  for (const server of await parentServers(context, messages)) {
    const response = await server.query(zone.name, RRType.DS, { dnssec: true });
    if (!good(response) || !hasDo(response)) continue;
    const records: ResourceRecord<DsData>[] = dsIn(response, RRType.DS, zone.name);
    return records.map((rr) => ({ ttl: rr.ttl, rdata: rr.rdata }));
  }
  return [];
}
