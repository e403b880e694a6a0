// Which codec reads which type. Types not listed here stay opaque bytes (RFC 3597).
import { RRType } from '../../constants.ts';
import { DnsDecodeError } from '../errors.ts';
import type { Reader } from '../reader.ts';
import type { Writer } from '../writer.ts';
import { aaaaCodec, aCodec, type AddressData } from './address-records.ts';
import type { RdataCodec } from './codec.ts';
import {
  dnskeyCodec,
  dsCodec,
  nsec3Codec,
  nsec3ParamCodec,
  nsecCodec,
  rrsigCodec,
  type DnskeyData,
  type DsData,
  type Nsec3Data,
  type Nsec3ParamData,
  type NsecData,
  type RrsigData,
} from './dnssec-records.ts';
import { sshfpCodec, tlsaCodec, type SshfpData, type TlsaData } from './fingerprint-records.ts';
import {
  mxCodec,
  naptrCodec,
  soaCodec,
  srvCodec,
  targetCodec,
  type MxData,
  type NaptrData,
  type SoaData,
  type SrvData,
  type TargetData,
} from './name-records.ts';
import { optCodec, type OptData } from './opt-record.ts';
import { caaCodec, hinfoCodec, txtCodec, type CaaData, type HinfoData, type TxtData } from './text-records.ts';

/** Structured rdata per known type. */
export interface RdataByType {
  [RRType.A]: AddressData;
  [RRType.AAAA]: AddressData;
  [RRType.NS]: TargetData;
  [RRType.CNAME]: TargetData;
  [RRType.DNAME]: TargetData;
  [RRType.PTR]: TargetData;
  [RRType.SOA]: SoaData;
  [RRType.MX]: MxData;
  [RRType.TXT]: TxtData;
  [RRType.SPF]: TxtData;
  [RRType.SRV]: SrvData;
  [RRType.CAA]: CaaData;
  [RRType.HINFO]: HinfoData;
  [RRType.NAPTR]: NaptrData;
  [RRType.TLSA]: TlsaData;
  [RRType.SSHFP]: SshfpData;
  [RRType.DS]: DsData;
  [RRType.CDS]: DsData;
  [RRType.DNSKEY]: DnskeyData;
  [RRType.CDNSKEY]: DnskeyData;
  [RRType.RRSIG]: RrsigData;
  [RRType.NSEC]: NsecData;
  [RRType.NSEC3]: Nsec3Data;
  [RRType.NSEC3PARAM]: Nsec3ParamData;
  [RRType.OPT]: OptData;
}

export type KnownType = keyof RdataByType;

/** Structured rdata of a known type, or the bytes themselves for unknown types (RFC 3597). */
export type Rdata = RdataByType[KnownType] | Uint8Array;

interface Entry {
  codec: RdataCodec<never>;
  /** RFC 3597 §4: only the RFC 1035 types may have their names compressed. */
  compress: boolean;
}

function entry<D>(codec: RdataCodec<D>, compress = false): Entry {
  return { codec: codec as RdataCodec<never>, compress };
}

const codecs = new Map<number, Entry>([
  [RRType.A, entry(aCodec)],
  [RRType.AAAA, entry(aaaaCodec)],
  [RRType.NS, entry(targetCodec, true)],
  [RRType.CNAME, entry(targetCodec, true)],
  [RRType.PTR, entry(targetCodec, true)],
  [RRType.DNAME, entry(targetCodec)],
  [RRType.SOA, entry(soaCodec, true)],
  [RRType.MX, entry(mxCodec, true)],
  [RRType.TXT, entry(txtCodec)],
  [RRType.SPF, entry(txtCodec)],
  [RRType.SRV, entry(srvCodec)],
  [RRType.CAA, entry(caaCodec)],
  [RRType.HINFO, entry(hinfoCodec)],
  [RRType.NAPTR, entry(naptrCodec)],
  [RRType.TLSA, entry(tlsaCodec)],
  [RRType.SSHFP, entry(sshfpCodec)],
  [RRType.DS, entry(dsCodec)],
  [RRType.CDS, entry(dsCodec)],
  [RRType.DNSKEY, entry(dnskeyCodec)],
  [RRType.CDNSKEY, entry(dnskeyCodec)],
  [RRType.RRSIG, entry(rrsigCodec)],
  [RRType.NSEC, entry(nsecCodec)],
  [RRType.NSEC3, entry(nsec3Codec)],
  [RRType.NSEC3PARAM, entry(nsec3ParamCodec)],
  [RRType.OPT, entry(optCodec)],
]);

/** Types whose rdata names are lower-cased in the canonical form (RFC 4034 §6.2, RFC 6840 §5.1). */
const canonicalLowercase = new Set<number>([
  RRType.NS,
  RRType.MD,
  RRType.MF,
  RRType.CNAME,
  RRType.SOA,
  RRType.MB,
  RRType.MG,
  RRType.MR,
  RRType.PTR,
  RRType.HINFO,
  RRType.MINFO,
  RRType.MX,
  RRType.RP,
  RRType.AFSDB,
  RRType.RT,
  RRType.SIG,
  RRType.PX,
  RRType.NXT,
  RRType.NAPTR,
  RRType.KX,
  RRType.SRV,
  RRType.DNAME,
  RRType.A6,
  RRType.RRSIG,
]);

const compressed = { compress: true, lowercase: false };
const plain = { compress: false, lowercase: false };
const lowercased = { compress: false, lowercase: true };

export function isKnownType(type: number): type is KnownType {
  return codecs.has(type);
}

/** Decodes rdata spanning reader.offset .. end; the reader ends exactly at `end`. */
export function decodeRdata(r: Reader, type: number, end: number): Rdata {
  const known = codecs.get(type);
  const outerEnd = r.end;
  r.end = end;
  const start = r.offset;
  const data = known ? (known.codec.decode(r) as Rdata) : r.take(end - start);
  if (r.offset !== end) throw new DnsDecodeError(`rdata of type ${type} is longer than its fields`, r.offset);
  r.end = outerEnd;
  return data;
}

/**
 * Writes rdata (without its length). Uint8Array rdata is written verbatim for any type, so a
 * caller can put deliberately odd bytes on the wire.
 */
export function encodeRdata(w: Writer, type: number, data: Rdata, mode: 'message' | 'uncompressed' | 'canonical'): void {
  if (data instanceof Uint8Array) {
    w.bytes(data);
    return;
  }
  const known = codecs.get(type);
  if (!known) throw new TypeError(`type ${type} has no structured rdata; pass the bytes`);
  const options =
    mode === 'message' ? (known.compress ? compressed : plain) : mode === 'canonical' && canonicalLowercase.has(type) ? lowercased : plain;
  known.codec.encode(w, data as never, options);
}
