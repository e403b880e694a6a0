// A name lookup for connections (net, tls, https, undici) that hands over only addresses the policy
// allows, so a name that resolved to a public address when it was accepted cannot be pointed at the
// operator's network later (DNS rebinding): the address checked is the one connected to.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { OutboundPolicy } from './outbound-policy.ts';

/** A lookup refused by the policy: trying again gets the same answer, unlike a network error. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
}

/** `extra` refuses more (say, anything not loopback for plain http); each address must pass both. */
export function guardedLookup(policy: OutboundPolicy, extra?: (hostname: string, address: string) => string | undefined): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) return callback(error, '', 4);
      const refused = addresses
        .map((a) => extra?.(hostname, a.address) ?? policy.addressProblem(a.address))
        .find((problem) => problem !== undefined);
      if (refused !== undefined) return callback(new AddressRefusedError(refused), '', 4);
      if (addresses.length === 0) return callback(new Error(`${hostname} has no address`), '', 4);
      if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}
