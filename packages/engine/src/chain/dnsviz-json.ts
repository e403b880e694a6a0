// The chain analysis in the shape of `dnsviz grok`'s JSON (DNSViz 0.11.2): zone names with the final
// dot as keys, `delegation.status`, `delegation.ds[]`, `dnskey[]`, `queries`, with DNSViz's keys and
// status words, so tools that read grok's output can read ours. Two additions, under names grok
// never uses: `signs` on a DNSKEY, and `dnscheck_notes` (what the run did not ask).
import { typeToString } from '@app/dns';
import type { ChainAnalysis, ChainQuery, ChainRrset, ChainZone } from './analyse-chain.ts';
import { rrsigTime, type Problem } from './statuses.ts';

const typeName = (type: number): string => typeToString(type);
const humanName = (name: string): string => (name === '.' ? '.' : name.replace(/\.$/, ''));

function problems(list: readonly Problem[]): { description: string; code: string }[] {
  return list.map((p) => ({ description: p.description, code: p.code }));
}

function rrsetJson(rrset: ChainRrset): Record<string, unknown> {
  return {
    id: `${rrset.name}/IN/${typeName(rrset.type)}`,
    description: `RRset for ${humanName(rrset.name)}/${typeName(rrset.type)}`,
    name: rrset.name,
    ttl: rrset.ttl,
    type: typeName(rrset.type),
    rdata: rrset.rdata,
    servers: rrset.servers,
    ...(rrset.rrsigs.length > 0 && {
      rrsig: rrset.rrsigs.map((sig) => ({
        id: sig.id,
        description: `RRSIG covering ${humanName(rrset.name)}/${typeName(rrset.type)}`,
        signer: sig.signer,
        algorithm: sig.algorithm,
        key_tag: sig.keyTag,
        original_ttl: sig.originalTtl,
        labels: sig.labels,
        inception: rrsigTime(sig.inception),
        expiration: rrsigTime(sig.expiration),
        ttl: sig.ttl,
        status: sig.status,
        servers: sig.servers,
        ...(sig.errors.length > 0 && { errors: problems(sig.errors) }),
      })),
    }),
  };
}

function queryJson(query: ChainQuery): Record<string, unknown> {
  const id = `${query.name}/IN/${typeName(query.type)}`;
  if (query.kind === 'answer') return { answer: query.rrsets.map(rrsetJson) };
  if (query.kind === 'error') return { error: [{ id, servers: query.servers }] };
  const proof = query.proof && [
    {
      id: query.proof.type,
      [query.proof.type === 'NSEC' ? 'nsec' : 'nsec3']: query.proof.rrsets.map(rrsetJson),
      status: query.proof.status,
    },
  ];
  return { [query.kind]: [{ id, ...(proof && { proof }), servers: query.servers }] };
}

function zoneJson(zone: ChainZone): Record<string, unknown> {
  const servers: Record<string, { glue?: string[]; auth?: string[] }> = {};
  for (const s of zone.servers)
    servers[s.name] = { ...(s.glue.length > 0 && { glue: s.glue }), ...(s.auth.length > 0 && { auth: s.auth }) };
  return {
    status: zone.status,
    queries: Object.fromEntries(zone.queries.map((q) => [`${q.name}/IN/${typeName(q.type)}`, queryJson(q)])),
    ...(zone.dnskeys.length > 0 && {
      dnskey: zone.dnskeys.map((k) => ({
        id: k.id,
        description: `DNSKEY for ${humanName(zone.name)} (algorithm ${k.algorithm}, key tag ${k.keyTag})`,
        flags: k.flags,
        protocol: k.protocol,
        algorithm: k.algorithm,
        key: k.key,
        ttl: k.ttl,
        key_length: k.keyLength,
        key_tag: k.keyTag,
        servers: k.servers,
        signs: k.signs,
      })),
    }),
    zone: { servers },
    ...(zone.delegation && {
      delegation: {
        ...(zone.delegation.ds.length > 0 && {
          ds: zone.delegation.ds.map((ds) => ({
            id: ds.id,
            description: `DS record(s) corresponding to DNSKEY for ${humanName(zone.name)} (algorithm ${ds.algorithm}, key tag ${ds.keyTag})`,
            algorithm: ds.algorithm,
            key_tag: ds.keyTag,
            digest_type: ds.digestType,
            digest: ds.digest,
            ttl: ds.ttl,
            status: ds.status,
            servers: ds.servers,
            ...(ds.warnings.length > 0 && { warnings: problems(ds.warnings) }),
            ...(ds.errors.length > 0 && { errors: problems(ds.errors) }),
          })),
        }),
        status: zone.delegation.status,
        ...(zone.delegation.errors.length > 0 && { errors: problems(zone.delegation.errors) }),
      },
    }),
    ...(zone.notes.length > 0 && { dnscheck_notes: zone.notes }),
  };
}

/** grok's object: one key per zone, root first. */
export function toDnsvizJson(analysis: ChainAnalysis): Record<string, unknown> {
  return Object.fromEntries(analysis.zones.map((zone) => [zone.name, zoneJson(zone)]));
}
