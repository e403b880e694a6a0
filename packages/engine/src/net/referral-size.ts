// The size of the referral a parent would send for a zone, as RFC 1035 caps a UDP answer without EDNS
// at 512 bytes: the longest possible query name in the zone, the NS set, and one glue address per family.
import { encodeMessage, Name, RRClass, RRType, MAX_LABEL_LENGTH, type RecordInput } from '@app/dns';

// A name's presentation length with the final dot, at most (the reference's limit).
const maxTextLength = 254;

/** A name under `zone` as long as a name can be, so that compression saves the least. */
export function longestNameUnder(zone: Name): Name {
  let text = zone.isRoot ? '' : zone.toString();
  while (text.length < maxTextLength - 1) text = `${'a'.repeat(Math.min(MAX_LABEL_LENGTH, maxTextLength - text.length - 1))}.${text}`;
  return Name.fromString(text);
}

export interface ReferralGlue {
  name: Name;
  address: string;
  family: 4 | 6;
}

/** Bytes on the wire of a referral for `zone` to `nsNames`, with the given glue records. */
export function referralSize(zone: Name, nsNames: readonly Name[], glue: readonly ReferralGlue[]): number {
  const authority: RecordInput[] = nsNames.map((target) => ({
    name: zone,
    type: RRType.NS,
    class: RRClass.IN,
    ttl: 3600,
    rdata: { target },
  }));
  const additional: RecordInput[] = glue.map((g) => ({
    name: g.name,
    type: g.family === 4 ? RRType.A : RRType.AAAA,
    class: RRClass.IN,
    ttl: 3600,
    rdata: { address: g.address },
  }));
  return encodeMessage({
    qr: true,
    question: [{ name: longestNameUnder(zone), type: RRType.NS, class: RRClass.IN }],
    authority,
    additional,
  }).length;
}
