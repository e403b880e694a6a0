export { AddressRefusedError, guardedLookup } from './guarded-lookup.ts';
export { hostProblem, NetworkListError, outboundPolicy, type OutboundPolicy, type PolicyOptions } from './outbound-policy.ts';
export { isLoopback } from './special-ranges.ts';
