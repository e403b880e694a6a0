// ZONEMD records (RFC 8976) for a lab zone: the digest of the zone as BIND reads it, right or spoilt
// as the scenario asks. The engine's check is held against ldns-verify-zone, not against this code.
import { Name, parseZoneFile, recordIs, RRType, zoneDigest } from '@app/dns';
import type { ZonemdSpec } from '../scenario/scenario-format.ts';

/** The apex ZONEMD lines to add to `canonicalText` (the zone one record a line, from named-compilezone). */
export function zonemdLines(origin: string, canonicalText: string, specs: readonly ZonemdSpec[]): string[] {
  const apex = Name.fromString(origin);
  const records = parseZoneFile(canonicalText, { origin: apex });
  const soa = records.find((rr) => recordIs(rr, RRType.SOA) && rr.name.equals(apex));
  if (soa === undefined || !recordIs(soa, RRType.SOA)) throw new Error(`${origin}: ZONEMD needs the zone's SOA`);
  return specs.map((spec) => {
    const serial = spec.serial === 'soa' ? soa.rdata.serial : (soa.rdata.serial + 1) >>> 0;
    // An algorithm RFC 8976 does not define gets a digest of SHA384's length, which no verifier can check.
    const digest = Buffer.from(zoneDigest(records, apex, spec.algorithm) ?? new Uint8Array(48).fill(0xab));
    if (spec.digest === 'wrong') digest[0] ^= 0xff;
    return `${origin} 3600 IN ZONEMD ${serial} ${spec.scheme} ${spec.algorithm} ${digest.toString('hex')}`;
  });
}
