import type { RdataCodec } from './codec.ts';

/** RFC 6698. */
export interface TlsaData {
  usage: number;
  selector: number;
  matchingType: number;
  data: Uint8Array;
}

/** RFC 4255. */
export interface SshfpData {
  algorithm: number;
  fingerprintType: number;
  fingerprint: Uint8Array;
}

export const tlsaCodec: RdataCodec<TlsaData> = {
  decode: (r) => ({ usage: r.u8(), selector: r.u8(), matchingType: r.u8(), data: r.rest() }),
  encode: (w, d) => {
    w.u8(d.usage);
    w.u8(d.selector);
    w.u8(d.matchingType);
    w.bytes(d.data);
  },
};

export const sshfpCodec: RdataCodec<SshfpData> = {
  decode: (r) => ({ algorithm: r.u8(), fingerprintType: r.u8(), fingerprint: r.rest() }),
  encode: (w, d) => {
    w.u8(d.algorithm);
    w.u8(d.fingerprintType);
    w.bytes(d.fingerprint);
  },
};
