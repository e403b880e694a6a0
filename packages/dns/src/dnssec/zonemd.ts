// ZONEMD (RFC 8976): its rdata, and the digest of a whole zone under the SIMPLE scheme (§3).
import { createHash } from 'node:crypto';
import { RRType } from '../constants.ts';
import { canonicalRdata, compareBytes } from './canonical.ts';
import type { Name } from '../name.ts';
import { DnsDecodeError } from '../wire/errors.ts';
import type { RecordInput } from '../wire/message.ts';
import { Writer } from '../wire/writer.ts';

export interface ZonemdData {
  serial: number;
  scheme: number;
  algorithm: number;
  digest: Uint8Array;
}

/** RFC 8976 §5.2 and §5.3: the SIMPLE scheme, and the hash algorithms with their digest lengths. */
export const ZONEMD_SCHEME_SIMPLE = 1;
const hashes: ReadonlyMap<number, { name: string; length: number }> = new Map([
  [1, { name: 'sha384', length: 48 }],
  [2, { name: 'sha512', length: 64 }],
]);

export const isSupportedZonemd = (scheme: number, algorithm: number): boolean => scheme === ZONEMD_SCHEME_SIMPLE && hashes.has(algorithm);

/** ZONEMD rdata stays opaque bytes in messages (RFC 3597); this reads its fields (§2.2). */
export function parseZonemd(rdata: Uint8Array): ZonemdData {
  // §2.2.4: a digest shorter than 12 octets is invalid whatever the algorithm.
  if (rdata.length < 6 + 12) throw new DnsDecodeError(`ZONEMD rdata of ${rdata.length} bytes is too short`, rdata.length);
  const view = new DataView(rdata.buffer, rdata.byteOffset, rdata.byteLength);
  return { serial: view.getUint32(0), scheme: rdata[4], algorithm: rdata[5], digest: rdata.slice(6) };
}

export function encodeZonemd(data: ZonemdData): Uint8Array {
  const w = new Writer(6 + data.digest.length);
  w.u32(data.serial);
  w.u8(data.scheme);
  w.u8(data.algorithm);
  w.bytes(data.digest);
  return w.finish();
}

interface Canonical {
  owner: Name;
  type: number;
  wire: Uint8Array;
  rdata: Uint8Array;
}

/**
 * The records §3.3.1 digests: in the zone (at or below the apex), without the apex ZONEMD RRset and the
 * RRSIGs covering it, in canonical form; sorted by owner, type and rdata; duplicates removed.
 */
function digestInput(records: readonly RecordInput[], apex: Name): Canonical[] {
  const list: Canonical[] = [];
  for (const rr of records) {
    if (!rr.name.equals(apex) && !rr.name.isSubdomainOf(apex)) continue;
    const rdata = canonicalRdata(rr);
    if (rr.name.equals(apex) && (rr.type === RRType.ZONEMD || (rr.type === RRType.RRSIG && coveredType(rdata) === RRType.ZONEMD))) continue;
    const owner = rr.name.toLowerCase();
    const w = new Writer(rdata.length + owner.wire.length + 10);
    w.name(owner, false);
    w.u16(rr.type);
    w.u16(rr.class);
    w.u32(rr.ttl);
    w.u16(rdata.length);
    w.bytes(rdata);
    list.push({ owner, type: rr.type, wire: w.finish(), rdata });
  }
  list.sort((a, b) => a.owner.compareCanonical(b.owner) || a.type - b.type || compareBytes(a.rdata, b.rdata));
  return list.filter(
    (rr, i) =>
      i === 0 || !(list[i - 1].owner.equals(rr.owner) && list[i - 1].type === rr.type && compareBytes(list[i - 1].rdata, rr.rdata) === 0),
  );
}

const coveredType = (rrsigRdata: Uint8Array): number => (rrsigRdata.length >= 2 ? (rrsigRdata[0] << 8) | rrsigRdata[1] : -1);

/** The SIMPLE-scheme digest of the zone with this hash algorithm; undefined for an algorithm not supported. */
export function zoneDigest(records: readonly RecordInput[], apex: Name, algorithm: number): Uint8Array | undefined {
  const hash = hashes.get(algorithm);
  if (hash === undefined) return undefined;
  const digest = createHash(hash.name);
  for (const rr of digestInput(records, apex)) digest.update(rr.wire);
  return new Uint8Array(digest.digest());
}

/** One ZONEMD record's verdict: §4's steps for that record alone. */
export type ZonemdRecordVerdict = 'match' | 'mismatch' | 'serial-mismatch' | 'unsupported' | 'duplicate';

export interface ZonemdVerification {
  /**
   * verified: a supported record's digest matches; failed: none does (or the SOA is missing);
   * unsupported: no record with a scheme and algorithm we know, so nothing to verify (not a failure);
   * absent: no ZONEMD at the apex.
   */
  status: 'verified' | 'failed' | 'unsupported' | 'absent';
  soaSerial?: number;
  records: { zonemd: ZonemdData; verdict: ZonemdRecordVerdict; computed?: Uint8Array }[];
}

/** RFC 8976 §4 on the records of a whole zone (a transfer's): which apex ZONEMD records hold the zone's digest. */
export function verifyZonemd(records: readonly RecordInput[], apex: Name): ZonemdVerification {
  const atApex = (type: number) => records.filter((rr) => rr.type === type && rr.name.equals(apex));
  const zonemds = atApex(RRType.ZONEMD).flatMap((rr) => {
    try {
      return [parseZonemd(rr.rdata instanceof Uint8Array ? rr.rdata : canonicalRdata(rr))];
    } catch {
      return [];
    }
  });
  if (zonemds.length === 0) return { status: 'absent', records: [] };
  const soa = atApex(RRType.SOA)[0];
  const soaSerial = soa === undefined ? undefined : (soa.rdata as { serial: number }).serial;
  const key = (z: ZonemdData) => `${z.scheme}/${z.algorithm}`;
  const counts = new Map<string, number>();
  for (const z of zonemds) counts.set(key(z), (counts.get(key(z)) ?? 0) + 1);
  const computed = new Map<number, Uint8Array | undefined>();
  const results = zonemds.map((zonemd) => {
    if (!isSupportedZonemd(zonemd.scheme, zonemd.algorithm)) return { zonemd, verdict: 'unsupported' as const };
    if ((counts.get(key(zonemd)) ?? 0) > 1) return { zonemd, verdict: 'duplicate' as const };
    if (zonemd.serial !== soaSerial) return { zonemd, verdict: 'serial-mismatch' as const };
    if (!computed.has(zonemd.algorithm)) computed.set(zonemd.algorithm, zoneDigest(records, apex, zonemd.algorithm));
    const digest = computed.get(zonemd.algorithm)!;
    return { zonemd, verdict: compareBytes(digest, zonemd.digest) === 0 ? ('match' as const) : ('mismatch' as const), computed: digest };
  });
  const status = results.some((r) => r.verdict === 'match')
    ? 'verified'
    : results.every((r) => r.verdict === 'unsupported')
      ? 'unsupported'
      : 'failed';
  return { status, ...(soaSerial !== undefined && { soaSerial }), records: results };
}
