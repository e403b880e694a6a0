// The store answers only to its own host names. The Host (or a trusted proxy's X-Forwarded-Host) becomes the origin of
// every absolute URL the store gives out (next_page, Link, result_url, the HTTPS redirect), so a Host it does not own
// would put anyone's address, or a second link, there. Answered: the names configured (STORE_ALLOWED_HOSTS), the
// address it listens on, an address literal of the connection's own local address, and on loopback `localhost` and
// loopback addresses (a page cannot rebind those to another machine).
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../model/api-error.ts';

export interface HostRules {
  /** The address the store listens on. */
  listenHost: string;
  /** Further names it answers to, lower case. */
  names: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The host (and port) the client addressed, one this store answers to. */
    publicHost: RequestHost | undefined;
  }
}

export interface RequestHost {
  /** Lower case, without a final dot; an IPv6 address without brackets. */
  name: string;
  port: number | undefined;
}

/** The name and port of a Host value (`name`, `name:port`, `[v6]:port`); undefined for anything else. */
export function parseHost(value: string): RequestHost | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::([0-9]{1,5}))?$/.exec(value);
  if (match === null || (match[1] !== undefined && isIP(match[1]) !== 6)) return undefined;
  const name = (match[1] ?? match[2] ?? '').toLowerCase().replace(/\.$/, '');
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (name === '' || name.startsWith('.') || (port !== undefined && (port < 1 || port > 65535))) return undefined;
  return { name, port };
}

/** The host part of a URL: an IPv6 address in brackets, and the port when one was given. */
export function urlHost({ name, port }: RequestHost): string {
  return `${isIP(name) === 6 ? `[${name}]` : name}${port === undefined ? '' : `:${port}`}`;
}

const UNSPECIFIED = new Set(['0.0.0.0', '::', '']);
const withoutV4Mapping = (address: string) => address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
const isLoopback = (address: string) => address === 'localhost' || address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);

/** Whether a request naming `name`, on a connection that arrived at `localAddress`, is one this store answers. */
export function answersTo(name: string, rules: HostRules, localAddress: string | undefined): boolean {
  const listen = rules.listenHost.toLowerCase();
  if (rules.names.includes(name) || (name === listen && !UNSPECIFIED.has(listen))) return true;
  const local = localAddress === undefined ? undefined : withoutV4Mapping(localAddress);
  if (local !== undefined && isIP(name) !== 0 && withoutV4Mapping(name) === local) return true;
  return isLoopback(local ?? listen) && isLoopback(name);
}

/** The configured names, checked: each a host name or address without a port. */
export function hostNames(values: readonly string[], where: string): string[] {
  return values.map((value) => {
    const host = parseHost(value.trim());
    if (host === undefined || host.port !== undefined)
      throw new Error(`${where}: "${value}" is not a host name (give names without a scheme or port)`);
    return host.name;
  });
}

/**
 * The request's host, or the store's error (400 for a Host that is no host name, 421 for one that is not this store's).
 * An HTTP/1.0 request may name no host (a load balancer's health check, say): it is taken as addressed to the
 * address the connection arrived at, which no client chooses.
 */
export function requestHost(
  hostValue: string,
  rules: HostRules,
  localAddress: string | undefined,
  localPort?: number,
): RequestHost | ApiError {
  if (hostValue === '') return { name: withoutV4Mapping(localAddress ?? rules.listenHost), port: localPort };
  const host = parseHost(hostValue);
  if (host === undefined) return new ApiError(400, 'Host: not a host name with an optional port');
  if (!answersTo(host.name, rules, localAddress))
    return new ApiError(
      421,
      'This store does not answer to the host name in Host; its operator lists the names it answers to in STORE_ALLOWED_HOSTS',
    );
  return host;
}

/** `https://<host>[:port]`: the origin of the absolute URLs a request is answered with. */
export function publicOrigin(request: FastifyRequest): string {
  if (request.publicHost === undefined) throw new Error('the allowed-hosts plugin did not see this request');
  return `https://${urlHost(request.publicHost)}`;
}

export const allowedHosts = fp(
  (app: FastifyInstance, rules: HostRules) => {
    app.decorateRequest('publicHost', undefined);
    // First of all hooks: a refused host gets nothing else, not even a redirect.
    app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
      const host = requestHost(request.host, rules, request.socket.localAddress, request.socket.localPort);
      if (host instanceof ApiError) return done(host);
      request.publicHost = host;
      done();
    });
    return Promise.resolve();
  },
  { name: 'allowed-hosts' },
);
