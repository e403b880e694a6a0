// RFC 4034 Appendix B.
import { DnssecAlgorithm } from '../constants.ts';
import type { DnskeyData } from '../wire/rdata/dnssec-records.ts';
import { encodeRdataBytes } from '../wire/message.ts';
import { RRType } from '../constants.ts';

export function keyTag(dnskey: DnskeyData): number {
  const rdata = encodeRdataBytes(RRType.DNSKEY, dnskey);
  if (dnskey.algorithm === DnssecAlgorithm.RSAMD5) {
    // Algorithm 1 uses the middle of the modulus instead (B.1).
    const n = rdata.length;
    return n < 4 ? 0 : (rdata[n - 3] << 8) | rdata[n - 2];
  }
  let acc = 0;
  for (let i = 0; i < rdata.length; i++) acc += i & 1 ? rdata[i] : rdata[i] << 8;
  acc += (acc >> 16) & 0xffff;
  return acc & 0xffff;
}
