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

/** Stand-ins signed with the zone, so that its NSEC or NSEC3 chain names ZONEMD; withZonemd replaces them. */
export function zonemdPlaceholders(origin: string, specs: readonly ZonemdSpec[]): string[] {
  // Each one different, or BIND would keep one of two equal records.
  return specs.map(
    (spec, i) => `${origin} 3600 IN ZONEMD 0 ${spec.scheme} ${spec.algorithm} ${(i + 1).toString(16).padStart(2, '0').repeat(48)}`,
  );
}

/**
 * Signed zone text (one record a line) with its apex ZONEMD records made from the zone as it stands, and
 * without the RRSIGs over the stand-ins: signing it again signs the ZONEMD RRset and keeps every other
 * signature, so the digest, which leaves out only the apex ZONEMD and its RRSIGs, still holds.
 */
export function withZonemd(origin: string, signedText: string, specs: readonly ZonemdSpec[]): string {
  const apex = origin.toLowerCase();
  const kept = signedText.split('\n').filter((line) => {
    const fields = line.trim().split(/\s+/);
    if (fields[0]?.toLowerCase() !== apex) return true;
    const at = fields.indexOf('IN');
    return !(fields[at + 1] === 'ZONEMD' || (fields[at + 1] === 'RRSIG' && fields[at + 2] === 'ZONEMD'));
  });
  return `${kept.join('\n')}\n${zonemdLines(origin, signedText, specs).join('\n')}\n`;
}
