import { ipv4ToBytes, ipv4ToString, ipv6ToBytes, ipv6ToString } from '../address.ts';
import type { RdataCodec } from './codec.ts';

export interface AddressData {
  /** Dotted quad for A, RFC 5952 text for AAAA. */
  address: string;
}

export const aCodec: RdataCodec<AddressData> = {
  decode: (r) => ({ address: ipv4ToString(r.take(4, 'A address')) }),
  encode: (w, d) => w.bytes(ipv4ToBytes(d.address)),
};

export const aaaaCodec: RdataCodec<AddressData> = {
  decode: (r) => ({ address: ipv6ToString(r.take(16, 'AAAA address')) }),
  encode: (w, d) => w.bytes(ipv6ToBytes(d.address)),
};
