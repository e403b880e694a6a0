// Records to zone-file text (the presentation formats parseZoneFile reads back).
import { base32hexEncode } from '../base32hex.ts';
import { classToString, RRType, typeToString } from '../constants.ts';
import { encodeRdataBytes, type RecordInput } from '../wire/message.ts';
import type { Rdata, RdataByType } from '../wire/rdata/registry.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** A character-string in quotes; `"` and `\` escaped, bytes outside printable ASCII as \DDD. */
export function quoteCharacterString(bytes: Uint8Array): string {
  let s = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) s += '\\' + String.fromCharCode(b);
    else if (b < 0x20 || b > 0x7e) s += '\\' + String(b).padStart(3, '0');
    else s += String.fromCharCode(b);
  }
  return s + '"';
}

function time(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

const types = (list: number[]) => list.map(typeToString).join(' ');

type Formatters = { [T in keyof RdataByType]?: (d: RdataByType[T]) => string | undefined };

// Returning undefined means the value has no text form (an empty digest, say): use \# instead.
const formatters: Formatters = {
  [RRType.A]: (d) => d.address,
  [RRType.AAAA]: (d) => d.address,
  [RRType.NS]: (d) => d.target.toString(),
  [RRType.CNAME]: (d) => d.target.toString(),
  [RRType.DNAME]: (d) => d.target.toString(),
  [RRType.PTR]: (d) => d.target.toString(),
  [RRType.SOA]: (d) => `${d.mname.toString()} ${d.rname.toString()} ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}`,
  [RRType.MX]: (d) => `${d.preference} ${d.exchange.toString()}`,
  [RRType.TXT]: (d) => (d.strings.length ? d.strings.map(quoteCharacterString).join(' ') : undefined),
  [RRType.SPF]: (d) => (d.strings.length ? d.strings.map(quoteCharacterString).join(' ') : undefined),
  [RRType.SRV]: (d) => `${d.priority} ${d.weight} ${d.port} ${d.target.toString()}`,
  [RRType.CAA]: (d) => (/^[A-Za-z0-9]+$/.test(d.tag) ? `${d.flags} ${d.tag} ${quoteCharacterString(d.value)}` : undefined),
  [RRType.HINFO]: (d) => `${quoteCharacterString(d.cpu)} ${quoteCharacterString(d.os)}`,
  [RRType.NAPTR]: (d) =>
    `${d.order} ${d.preference} ${[d.flags, d.services, d.regexp].map(quoteCharacterString).join(' ')} ${d.replacement.toString()}`,
  [RRType.TLSA]: (d) => (d.data.length ? `${d.usage} ${d.selector} ${d.matchingType} ${hex(d.data)}` : undefined),
  [RRType.SSHFP]: (d) => (d.fingerprint.length ? `${d.algorithm} ${d.fingerprintType} ${hex(d.fingerprint)}` : undefined),
  [RRType.DS]: (d) => (d.digest.length ? `${d.keyTag} ${d.algorithm} ${d.digestType} ${hex(d.digest)}` : undefined),
  [RRType.CDS]: (d) => (d.digest.length ? `${d.keyTag} ${d.algorithm} ${d.digestType} ${hex(d.digest)}` : undefined),
  [RRType.DNSKEY]: (d) => (d.publicKey.length ? `${d.flags} ${d.protocol} ${d.algorithm} ${b64(d.publicKey)}` : undefined),
  [RRType.CDNSKEY]: (d) => (d.publicKey.length ? `${d.flags} ${d.protocol} ${d.algorithm} ${b64(d.publicKey)}` : undefined),
  [RRType.RRSIG]: (d) =>
    d.signature.length
      ? `${typeToString(d.typeCovered)} ${d.algorithm} ${d.labels} ${d.originalTtl} ${time(d.expiration)} ${time(d.inception)} ${d.keyTag} ${d.signerName.toString()} ${b64(d.signature)}`
      : undefined,
  [RRType.NSEC]: (d) => `${d.nextDomain.toString()} ${types(d.types)}`.trimEnd(),
  [RRType.NSEC3]: (d) =>
    d.nextHashed.length
      ? `${d.hashAlgorithm} ${d.flags} ${d.iterations} ${d.salt.length ? hex(d.salt) : '-'} ${base32hexEncode(d.nextHashed).toUpperCase()} ${types(d.types)}`.trimEnd()
      : undefined,
  [RRType.NSEC3PARAM]: (d) => `${d.hashAlgorithm} ${d.flags} ${d.iterations} ${d.salt.length ? hex(d.salt) : '-'}`,
};

/** Rdata in presentation format; RFC 3597 `\# length hex` for unknown types and odd values. */
export function rdataToString(type: number, rdata: Rdata): string {
  const format = formatters[type as keyof RdataByType] as ((d: Rdata) => string | undefined) | undefined;
  const text = !(rdata instanceof Uint8Array) && format ? format(rdata) : undefined;
  if (text !== undefined) return text;
  const bytes = encodeRdataBytes(type, rdata);
  return bytes.length ? `\\# ${bytes.length} ${hex(bytes)}` : '\\# 0';
}

/** One zone-file line: owner, TTL, class, type, rdata. */
export function recordToString(rr: RecordInput): string {
  return `${rr.name.toString()} ${rr.ttl} ${classToString(rr.class)} ${typeToString(rr.type)} ${rdataToString(rr.type, rr.rdata)}`;
}
