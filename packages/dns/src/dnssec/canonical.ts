// The data an RRSIG signs: RFC 4034 §3.1.8.1 and §6, with RFC 6840 §5.1's list of lower-cased types.
import { Name } from '../name.ts';
import { encodeRdataBytes, type RecordInput } from '../wire/message.ts';
import type { RrsigData } from '../wire/rdata/dnssec-records.ts';
import { Writer } from '../wire/writer.ts';

const wildcard = Uint8Array.of(0x2a);

/** Canonical rdata of one record: names uncompressed and, for the listed types, lower case. */
export function canonicalRdata(rr: RecordInput): Uint8Array {
  return encodeRdataBytes(rr.type, rr.rdata, true);
}

/** The owner as signed: lower case, and re-wildcarded when the RRSIG says fewer labels (§3.1.3). */
export function signedOwner(owner: Name, labels: number): Name {
  const count = owner.labelCount;
  if (labels >= count) return owner.toLowerCase();
  return Name.fromLabels([wildcard, ...owner.labels.slice(count - labels)]).toLowerCase();
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** RRSIG rdata without the signature, then each RR in canonical form and order, duplicates dropped. */
export function signedData(rrset: readonly RecordInput[], rrsig: RrsigData): Uint8Array {
  const w = new Writer(1024);
  w.u16(rrsig.typeCovered);
  w.u8(rrsig.algorithm);
  w.u8(rrsig.labels);
  w.u32(rrsig.originalTtl);
  w.u32(rrsig.expiration);
  w.u32(rrsig.inception);
  w.u16(rrsig.keyTag);
  w.name(rrsig.signerName, false, true);
  const rdatas = rrset.map(canonicalRdata).sort(compareBytes);
  for (let i = 0; i < rdatas.length; i++) {
    if (i > 0 && compareBytes(rdatas[i], rdatas[i - 1]) === 0) continue;
    const rr = rrset[0];
    w.name(signedOwner(rr.name, rrsig.labels), false);
    w.u16(rr.type);
    w.u16(rr.class);
    w.u32(rrsig.originalTtl);
    w.u16(rdatas[i].length);
    w.bytes(rdatas[i]);
  }
  return w.finish();
}
