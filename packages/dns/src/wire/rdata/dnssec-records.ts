import type { Name } from '../../name.ts';
import type { RdataCodec } from './codec.ts';
import { readTypeBitmap, writeTypeBitmap } from './type-bitmap.ts';

/** DS and CDS (RFC 4034 §5, RFC 7344). */
export interface DsData {
  keyTag: number;
  algorithm: number;
  digestType: number;
  digest: Uint8Array;
}

/** DNSKEY and CDNSKEY (RFC 4034 §2). */
export interface DnskeyData {
  flags: number;
  protocol: number;
  algorithm: number;
  publicKey: Uint8Array;
}

/** RFC 4034 §3. Times are seconds since the epoch, modulo 2^32 (RFC 4034 §3.1.5). */
export interface RrsigData {
  typeCovered: number;
  algorithm: number;
  labels: number;
  originalTtl: number;
  expiration: number;
  inception: number;
  keyTag: number;
  signerName: Name;
  signature: Uint8Array;
}

export interface NsecData {
  nextDomain: Name;
  types: number[];
}

/** RFC 5155 §3. `nextHashed` is the raw hash (base32hex only in text). */
export interface Nsec3Data {
  hashAlgorithm: number;
  flags: number;
  iterations: number;
  salt: Uint8Array;
  nextHashed: Uint8Array;
  types: number[];
}

export interface Nsec3ParamData {
  hashAlgorithm: number;
  flags: number;
  iterations: number;
  salt: Uint8Array;
}

export const dsCodec: RdataCodec<DsData> = {
  decode: (r) => ({ keyTag: r.u16(), algorithm: r.u8(), digestType: r.u8(), digest: r.rest() }),
  encode: (w, d) => {
    w.u16(d.keyTag);
    w.u8(d.algorithm);
    w.u8(d.digestType);
    w.bytes(d.digest);
  },
};

export const dnskeyCodec: RdataCodec<DnskeyData> = {
  decode: (r) => ({ flags: r.u16(), protocol: r.u8(), algorithm: r.u8(), publicKey: r.rest() }),
  encode: (w, d) => {
    w.u16(d.flags);
    w.u8(d.protocol);
    w.u8(d.algorithm);
    w.bytes(d.publicKey);
  },
};

export const rrsigCodec: RdataCodec<RrsigData> = {
  decode: (r) => ({
    typeCovered: r.u16(),
    algorithm: r.u8(),
    labels: r.u8(),
    originalTtl: r.u32(),
    expiration: r.u32(),
    inception: r.u32(),
    keyTag: r.u16(),
    signerName: r.name(),
    signature: r.rest(),
  }),
  encode: (w, d, o) => {
    w.u16(d.typeCovered);
    w.u8(d.algorithm);
    w.u8(d.labels);
    w.u32(d.originalTtl);
    w.u32(d.expiration);
    w.u32(d.inception);
    w.u16(d.keyTag);
    w.name(d.signerName, false, o.lowercase);
    w.bytes(d.signature);
  },
};

export const nsecCodec: RdataCodec<NsecData> = {
  decode: (r) => ({ nextDomain: r.name(), types: readTypeBitmap(r) }),
  encode: (w, d, o) => {
    w.name(d.nextDomain, false, o.lowercase);
    writeTypeBitmap(w, d.types);
  },
};

export const nsec3Codec: RdataCodec<Nsec3Data> = {
  decode: (r) => ({
    hashAlgorithm: r.u8(),
    flags: r.u8(),
    iterations: r.u16(),
    salt: r.characterString(),
    nextHashed: r.characterString(),
    types: readTypeBitmap(r),
  }),
  encode: (w, d) => {
    w.u8(d.hashAlgorithm);
    w.u8(d.flags);
    w.u16(d.iterations);
    w.characterString(d.salt);
    w.characterString(d.nextHashed);
    writeTypeBitmap(w, d.types);
  },
};

export const nsec3ParamCodec: RdataCodec<Nsec3ParamData> = {
  decode: (r) => ({ hashAlgorithm: r.u8(), flags: r.u8(), iterations: r.u16(), salt: r.characterString() }),
  encode: (w, d) => {
    w.u8(d.hashAlgorithm);
    w.u8(d.flags);
    w.u16(d.iterations);
    w.characterString(d.salt);
  },
};
