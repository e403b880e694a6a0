// Where webhooks may go. A webhook URL must not become a way into the operator's own network: loopback,
// private, link-local and other special ranges are refused unless the operator allowed them
// (STORE_WEBHOOK_ALLOWED_NETWORKS; @app/outbound-address decides). Plain http is accepted only for hosts
// whose every address is loopback, for development. Both rules are decided on addresses (a name's resolved
// ones), never on how a host is spelt: `http://127.evil.example/` is a name like any other.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLoopback, outboundPolicy } from '@app/outbound-address';

export type Lookup = (hostname: string) => Promise<readonly string[]>;

const systemLookup: Lookup = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface TargetPolicy {
  /** Why this URL cannot be a webhook target, judged without resolving names; undefined when it may be. */
  urlProblem(text: string): string | undefined;
  /** urlProblem, and for plain http the addresses its host name resolves to now: each must be loopback. */
  resolvedUrlProblem(text: string): Promise<string | undefined>;
  /** Why a connection to this address is refused, or undefined when it is allowed. */
  addressProblem(address: string): string | undefined;
}

const isLiteral = (host: string) => isIP(host.replace(/^\[|\]$/g, '')) !== 0;

/** `allowedNetworks`: addresses or CIDRs (e.g. `127.0.0.0/8`, `::1`, `10.1.2.0/24`) the operator lets webhooks reach. */
export function targetPolicy(allowedNetworks: readonly string[] = [], lookup: Lookup = systemLookup): TargetPolicy {
  const { addressProblem } = outboundPolicy({
    allowedNetworks,
    refusalEnd:
      "not allowed for webhooks; the store's operator allows one by listing it in STORE_WEBHOOK_ALLOWED_NETWORKS (addresses or CIDR networks, comma-separated)",
  });

  function urlProblem(text: string): string | undefined {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'must be an absolute URL';
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const literal = isLiteral(host);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (!literal || isLoopback(host))))
      return 'must use https (plain http only on loopback)';
    if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
    // A name is judged by the addresses it resolves to: here for plain http, and at each delivery (see send.ts).
    return literal ? addressProblem(host) : undefined;
  }

  return {
    addressProblem,
    urlProblem,
    async resolvedUrlProblem(text) {
      const problem = urlProblem(text);
      if (problem !== undefined) return problem;
      const url = new URL(text);
      if (url.protocol !== 'http:' || isLiteral(url.hostname)) return undefined;
      let addresses: readonly string[];
      try {
        addresses = await lookup(url.hostname);
      } catch {
        return `must use https (plain http only on loopback; ${url.hostname} does not resolve)`;
      }
      const outside = addresses.find((address) => !isLoopback(address));
      if (addresses.length === 0 || outside !== undefined)
        return `must use https (plain http only on loopback; ${url.hostname} resolves to ${outside ?? 'nothing'})`;
      return addresses.map(addressProblem).find((p) => p !== undefined);
    },
  };
}
