// RFC 9276 §3.1's advice to zone publishers, as data: iterations MUST be 0, a salt SHOULD NOT be used,
// opt-out only for very large zones of mostly unsigned delegations.
import type { Nsec3Data } from '@app/dns';

/** RFC 5155 §3.1.2.1: the Opt-Out flag is bit 0 of the flags field (its least significant bit). */
export const optOut = (rdata: Nsec3Data): boolean => (rdata.flags & 1) === 1;

export type Nsec3Advice = 'iterations' | 'salt' | 'opt-out';

export function advisedAgainst(rdata: Nsec3Data): Nsec3Advice[] {
  return [
    ...(rdata.iterations > 0 ? (['iterations'] as const) : []),
    ...(rdata.salt.length > 0 ? (['salt'] as const) : []),
    ...(optOut(rdata) ? (['opt-out'] as const) : []),
  ];
}
