// Everything a run sends goes through here: one Nameserver object per (name, address), the profile's
// IP family switches, and caps on queries in flight for the run and per server address.
import pLimit, { type LimitFunction } from 'p-limit';
import { query, type Message, type Name, type Question } from '@app/dns';
import type { ResolverDefaults } from '../profile/profile.ts';
import { Nameserver, type QueryFlags } from './nameserver.ts';

export interface NetworkOptions {
  ipv4: boolean;
  ipv6: boolean;
  resolver: ResolverDefaults;
  signal: AbortSignal;
  /** Queries in flight for the whole run. */
  maxInFlight?: number;
  /** Queries in flight to one address. */
  maxPerServer?: number;
  port?: number;
}

export class Network {
  readonly options: NetworkOptions;
  readonly #servers = new Map<string, Nameserver>();
  readonly #all: LimitFunction;
  readonly #perServer = new Map<string, LimitFunction>();

  constructor(options: NetworkOptions) {
    this.options = options;
    this.#all = pLimit(options.maxInFlight ?? 64);
  }

  server(name: Name, address: string): Nameserver {
    const key = `${name.key()}/${address}`;
    let server = this.#servers.get(key);
    if (!server) {
      server = new Nameserver(this, name, address);
      this.#servers.set(key, server);
    }
    return server;
  }

  servers(): Nameserver[] {
    return [...this.#servers.values()];
  }

  familyEnabled(family: 4 | 6): boolean {
    return family === 4 ? this.options.ipv4 : this.options.ipv6;
  }

  /** Sends when a slot is free, unless `skip` says by then that it is no longer worth it. */
  async send(server: Nameserver, question: Question, flags: QueryFlags, skip: () => boolean): Promise<{ message?: Message; ms: number } | 'skipped'> {
    let limit = this.#perServer.get(server.address);
    if (!limit) {
      limit = pLimit(this.options.maxPerServer ?? 4);
      this.#perServer.set(server.address, limit);
    }
    return limit(async (): Promise<{ message?: Message; ms: number } | 'skipped'> => (skip() ? 'skipped' : this.#all(() => this.#sendNow(server, question, flags))));
  }

  async #sendNow(server: Nameserver, question: Question, flags: QueryFlags): Promise<{ message?: Message; ms: number }> {
    this.options.signal.throwIfAborted();
    const { resolver } = this.options;
    const profileEdns = resolver.edns_size > 0 ? { udpSize: resolver.edns_size } : undefined;
    const edns = flags.dnssec ? { udpSize: 1232, ...flags.edns, do: true } : flags.edns ? { udpSize: 512, ...flags.edns } : profileEdns;
    const started = performance.now();
    const result = await query({ address: server.address, port: this.options.port ?? 53 }, question, {
      transport: flags.tcp ? 'tcp' : 'udp',
      timeoutMs: resolver.timeout * 1000,
      // The profile's retry counts sends, as the reference's resolver library does, and retrans is the
      // time between them. The reference waits out the whole timeout before it resends; a resend at
      // retrans while still listening gets every reply it would, and a silent server costs 8 s, not 10.
      retries: Math.max(0, resolver.retry - 1),
      resendMs: resolver.retrans * 1000,
      rd: flags.rd ?? resolver.recurse,
      cd: flags.cd ?? false,
      tcFallback: resolver.fallback && !resolver.igntc,
      ...(edns && { edns }),
      signal: this.options.signal,
    });
    const ms = performance.now() - started;
    this.options.signal.throwIfAborted();
    return result.outcome === 'response' ? { message: result.message, ms } : { ms };
  }
}
