// One name server at one address, as the tests see it: queries are cached for the run, counted, and a
// server that has gone silent on a transport is not asked again on it (as the reference does).
import { isIP } from 'node:net';
import { Name, RRClass, type EdnsInput, type Message } from '@app/dns';
import type { Network } from './network.ts';
import { displayName } from './response.ts';

export interface QueryFlags {
  /** Set DO, with EDNS (1232 bytes unless edns says otherwise). */
  dnssec?: boolean;
  rd?: boolean;
  cd?: boolean;
  /** Ask over TCP from the start. */
  tcp?: boolean;
  /** Send EDNS with these settings. Without it and without dnssec no OPT record is sent. */
  edns?: EdnsInput;
  qclass?: number;
}

export interface NameserverStatistics {
  queries: number;
  cacheHits: number;
  responses: number;
  timeouts: number;
  blocked: number;
  totalMs: number;
}

export class Nameserver {
  readonly name: Name;
  readonly address: string;
  readonly family: 4 | 6;
  readonly statistics: NameserverStatistics = { queries: 0, cacheHits: 0, responses: 0, timeouts: 0, blocked: 0, totalMs: 0 };
  readonly #network: Network;
  readonly #cache = new Map<string, Promise<Message | undefined>>();
  // Transports found silent: 'udp' / 'tcp', each with or without DO.
  readonly #silent = new Set<string>();

  constructor(network: Network, name: Name, address: string) {
    this.#network = network;
    this.name = name.toLowerCase();
    this.address = address;
    this.family = isIP(address) === 6 ? 6 : 4;
  }

  /** 'ns1.example.com/192.0.2.1', the form findings use. */
  toString(): string {
    return `${displayName(this.name)}/${this.address}`;
  }

  get nameText(): string {
    return displayName(this.name);
  }

  /** The response, or undefined when none came (timeout, silent server, or its IP family is off). */
  query(qname: Name | string, qtype: number, given: QueryFlags = {}): Promise<Message | undefined> {
    const name = typeof qname === 'string' ? Name.fromString(qname) : qname;
    const defaults = this.#network.options.resolver;
    const flags: QueryFlags = { ...given, tcp: given.tcp ?? defaults.usevc, dnssec: given.dnssec ?? defaults.dnssec };
    const key = [name.key(), qtype, flags.qclass ?? RRClass.IN, flags.dnssec ? 1 : 0, flags.tcp ? 1 : 0, flags.rd ? 1 : 0, flags.cd ? 1 : 0, JSON.stringify(flags.edns ?? null)].join('|');
    const cached = this.#cache.get(key);
    if (cached) {
      this.statistics.cacheHits++;
      return cached;
    }
    const pending = this.#send(name, qtype, flags);
    this.#cache.set(key, pending);
    return pending;
  }

  async #send(name: Name, qtype: number, flags: QueryFlags): Promise<Message | undefined> {
    if (!this.#network.familyEnabled(this.family)) {
      this.statistics.blocked++;
      return undefined;
    }
    const transport = flags.tcp ? 'tcp' : 'udp';
    const dnssec = flags.dnssec === true;
    // Checked again when the query's turn comes: a query queued behind one that timed out is not sent.
    const silent = (): boolean => this.#silent.has(`${transport}:${dnssec}`);
    if (silent()) return undefined;
    const outcome = await this.#network.send(this, { name, type: qtype, class: flags.qclass ?? RRClass.IN }, flags, silent);
    if (outcome === 'skipped') return undefined;
    this.statistics.queries++;
    this.statistics.totalMs += outcome.ms;
    if (outcome.message) {
      this.statistics.responses++;
      return outcome.message;
    }
    this.statistics.timeouts++;
    // A plain query that got nothing says the DO variant will get nothing either.
    this.#silent.add(`${transport}:${dnssec}`);
    if (!dnssec) this.#silent.add(`${transport}:true`);
    return undefined;
  }
}
