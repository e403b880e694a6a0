// Everything a run sends goes through here: one Nameserver object per (name, address), the profile's
// IP family switches, and caps on queries in flight for the run and per server address.
import pLimit, { type LimitFunction } from 'p-limit';
import {
  decodeMessage,
  query,
  Rcode,
  transferZone,
  type Message,
  type Name,
  type Question,
  type QueryResult,
  type TransferResult,
} from '@app/dns';
import type { ResolverDefaults } from '../profile/profile.ts';
import { currentTestCase } from './query-attribution.ts';
import { EncryptedLanes } from './encrypted-lanes.ts';
import { Nameserver, type QueryFlags, type SendOutcome, type ServerNetwork } from './nameserver-client.ts';
import { ServerOrder } from './server-order.ts';
import { replyTtl, type SharedAnswerScope } from './shared-answers.ts';

/**
 * Compliance probes in flight, apart from the run's other questions (their own caps, per address and for
 * the run, so that they never delay those): all of one address's at once, as genreport sends them.
 */
const probesPerServer = 40;
const probesPerRun = 64;

export interface NetworkOptions {
  ipv4: boolean;
  ipv6: boolean;
  resolver: ResolverDefaults;
  signal: AbortSignal;
  /** Queries in flight for the whole run; by default 64, or two per server address met when that is more. */
  maxInFlight?: number;
  /** Queries in flight to one address. */
  maxPerServer?: number;
  port?: number;
  onExchange?: (exchange: Exchange) => void;
  onSend?: (sending: Sending) => void;
  /** When the test cases the reference runs before the given one have finished (see ServerOrder); none: no order. */
  earlierDone?: (testcase: string) => Promise<unknown> | undefined;
  /** The name a lane's own plain SOA query asks for (the zone under test). */
  probeName?: Name;
  /** Answers shared with other runs (see shared-answers.ts). */
  shared?: SharedAnswerScope;
  /** PEM CA certificates trusted beside the system's for DoT and DoH (dnscheck --tls-ca). */
  tlsCa?: string;
}

/** A query as it goes out. */
export interface Sending {
  server: string;
  qname: string;
  qtype: number;
  transport: 'udp' | 'tcp';
  /** The test case that sent it; none while the zone is set up. */
  testcase?: string;
  /** An id shared with its Exchange, which ends it. */
  id: number;
}

/** One query as sent and what came back (the reply's wire bytes in base64), for saving a run. */
export interface Exchange {
  /** The test case that sent it; none while the zone is set up. */
  testcase?: string;
  /** Its Sending's id. */
  id?: number;
  server: string;
  qname: string;
  qtype: number;
  qclass: number;
  transport: 'udp' | 'tcp';
  flags: QueryFlags;
  /** When it was sent, in ms since the process started (start-up shows as the first one's). */
  at: number;
  ms: number;
  /** The reply as it came, base64; absent when none came. */
  reply?: string;
  /** Not sent: another run's reply to the same question, from the shared cache. */
  shared?: true;
}

/**
 * The decoded reply of each exchange this process logged, so reading the log back (the chain's
 * questions and analysis) need not decode the base64 again. An exchange read from a saved run has none.
 */
export const decodedReplies = new WeakMap<Exchange, Message>();

export class Network implements ServerNetwork {
  readonly options: NetworkOptions;
  readonly #servers = new Map<string, Nameserver>();
  readonly #all: LimitFunction;
  readonly #perServer = new Map<string, LimitFunction>();
  readonly #probes = new Map<string, LimitFunction>();
  readonly #allProbes = pLimit(probesPerRun);
  #sent = 0;
  // Answers and silence belong to an address, under whichever name it is asked (as the reference
  // caches per address): the same question to one address goes out once per run.
  /** Answers by address and question (see Nameserver.query for the key). */
  readonly answers = new Map<string, Promise<Message | undefined>>();
  /** Every answer asked of `address` so far (answers' keys begin with the address). */
  answersOf(address: string): Promise<Message | undefined>[] {
    const prefix = `${address}|`;
    return [...this.answers].flatMap(([key, answer]) => (key.startsWith(prefix) ? [answer] : []));
  }

  /** 'address:transport' for each transport found silent. */
  readonly silent = new Set<string>();
  /** 'address:transport' for each transport that has answered at least once. */
  readonly answering = new Set<string>();
  /** The plain SOA query in flight to an 'address:transport' that has not answered yet (the questions after it wait); resolved early when another answer comes. */
  readonly probes = new Map<string, PromiseWithResolvers<void>>();
  // The address each response came from. Like the reference's resolver library we drop UDP replies
  // from elsewhere, so today it is always the server's; Nameserver04 still reads it rather than assume so.
  readonly sources = new WeakMap<Message, string>();
  /** Which queries wait for test cases the reference runs earlier. */
  readonly order: ServerOrder;
  /** A lane's own SOA query in flight, by the key of its question: the same question asked meanwhile joins it. */
  readonly deciding = new Map<string, Promise<{ sent: boolean; message?: Message }>>();

  readonly encrypted: EncryptedLanes;

  constructor(options: NetworkOptions) {
    this.options = options;
    this.encrypted = new EncryptedLanes({
      timeoutMs: options.resolver.timeout * 1000,
      signal: options.signal,
      ...(options.tlsCa !== undefined && { tlsCa: options.tlsCa }),
    });
    this.order = new ServerOrder({ earlierDone: options.earlierDone ?? (() => undefined) });
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

  /** The lane ('address:transport') answered: questions waiting for its first answer may go. */
  markAnswering(lane: string): void {
    this.answering.add(lane);
    this.probes.get(lane)?.resolve();
  }

  familyEnabled(family: 4 | 6): boolean {
    return family === 4 ? this.options.ipv4 : this.options.ipv6;
  }

  /**
   * Sends when a slot is free, unless `skip` says by then that it is no longer worth it. `settle` sees
   * the outcome before the slot goes to the next query, so that one's `skip` already knows it.
   */
  async send(
    server: Nameserver,
    question: Question,
    flags: QueryFlags,
    skip: () => boolean,
    settle?: (outcome: { message?: Message }) => void,
  ): Promise<SendOutcome | 'skipped'> {
    // Compliance probes wait in a line of their own per address: 35 of them to a server that drops
    // some must not hold the slots the other test cases' questions to it need.
    return this.#slot(server, skip, flags.header ? 'probe' : 'query', async () => {
      const outcome = await this.#sendNow(server, question, flags);
      settle?.(outcome);
      return outcome;
    });
  }

  #sharedKey(question: Question, key: string): string | undefined {
    const shared = this.options.shared;
    if (shared === undefined || question.name.isSubdomainOf(shared.below)) return undefined;
    // The profile's EDNS size and the port change what is asked, beside the question's own key.
    return `${this.options.port ?? 53}|${this.options.resolver.edns_size}|${key}`;
  }

  async sharedReply(server: Nameserver, question: Question, flags: QueryFlags, key: string): Promise<Message | undefined> {
    const sharedKey = this.#sharedKey(question, key);
    if (sharedKey === undefined) return undefined;
    const bytes = await this.options.shared!.answers.get(sharedKey).catch(() => undefined);
    if (bytes === undefined) return undefined;
    let message: Message;
    try {
      message = decodeMessage(bytes);
    } catch {
      return undefined;
    }
    this.options.signal.throwIfAborted();
    const testcase = currentTestCase();
    const exchange: Exchange = {
      ...(testcase !== undefined && { testcase }),
      id: ++this.#sent,
      server: server.toString(),
      qname: question.name.toString(),
      qtype: question.type,
      qclass: question.class,
      transport: flags.tcp ? 'tcp' : 'udp',
      flags,
      at: Math.round(performance.now()),
      ms: 0,
      reply: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
      shared: true,
    };
    if (this.options.onExchange) {
      decodedReplies.set(exchange, message);
      this.options.onExchange(exchange);
    }
    return message;
  }

  shareReply(question: Question, key: string, message: Message, bytes: Uint8Array): void {
    const sharedKey = this.#sharedKey(question, key);
    // Only whole, usable answers: a truncated or failing reply may be the moment's, not the server's.
    if (sharedKey === undefined || message.tc || (message.rcode !== Rcode.NOERROR && message.rcode !== Rcode.NXDOMAIN)) return;
    const ttl = replyTtl(message);
    if (ttl > 0) this.options.shared!.answers.set(sharedKey, bytes, ttl);
  }

  /** The start of a zone transfer: messages until `enough` says so (or the transfer ends). */
  async transfer(
    server: Nameserver,
    zone: Name,
    enough: (message: Message) => boolean,
    skip: () => boolean,
  ): Promise<(TransferResult & { ms: number }) | 'skipped'> {
    return this.#slot(server, skip, 'query', async () => {
      this.options.signal.throwIfAborted();
      const started = performance.now();
      const result = await transferZone({ address: server.address, port: this.options.port ?? 53 }, zone, {
        timeoutMs: this.options.resolver.timeout * 1000,
        signal: this.options.signal,
        onMessage: (message) => !enough(message),
      });
      return { ...result, ms: performance.now() - started };
    });
  }

  #slot<T>(server: Nameserver, skip: () => boolean, line: 'query' | 'probe', work: () => Promise<T>): Promise<T | 'skipped'> {
    if (line === 'probe') {
      let probes = this.#probes.get(server.address);
      if (!probes) {
        probes = pLimit(probesPerServer);
        this.#probes.set(server.address, probes);
      }
      return probes(async (): Promise<T | 'skipped'> => (skip() ? 'skipped' : this.#allProbes(work)));
    }
    let limit = this.#perServer.get(server.address);
    if (!limit) {
      limit = pLimit(this.options.maxPerServer ?? 16);
      this.#perServer.set(server.address, limit);
      // A zone of 100 servers has 100 first questions, each of which may wait out a timeout: two
      // slots per address keep a silent half of them from holding the run's slots for minutes.
      if (this.options.maxInFlight === undefined) this.#all.concurrency = Math.max(this.#all.concurrency, 2 * this.#perServer.size);
    }
    return limit(async (): Promise<T | 'skipped'> => (skip() ? 'skipped' : this.#all(work)));
  }

  #log(onExchange: (exchange: Exchange) => void, result: QueryResult, exchange: Exchange): void {
    if (result.outcome === 'response') decodedReplies.set(exchange, result.message);
    onExchange(exchange);
  }

  async #sendNow(server: Nameserver, question: Question, flags: QueryFlags): Promise<SendOutcome> {
    this.options.signal.throwIfAborted();
    const { resolver } = this.options;
    const profileEdns = resolver.edns_size > 0 ? { udpSize: resolver.edns_size } : undefined;
    const edns = flags.dnssec ? { udpSize: 1232, ...flags.edns, do: true } : flags.edns ? { udpSize: 512, ...flags.edns } : profileEdns;
    const started = performance.now();
    const testcase = currentTestCase();
    const id = ++this.#sent;
    this.options.onSend?.({
      server: server.toString(),
      qname: question.name.toString(),
      qtype: question.type,
      transport: flags.tcp ? 'tcp' : 'udp',
      id,
      ...(testcase !== undefined && { testcase }),
    });
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
      tcFallback: flags.fallback ?? (resolver.fallback && !resolver.igntc),
      ...(edns && { edns }),
      ...flags.header,
      signal: this.options.signal,
    });
    const ms = performance.now() - started;
    if (this.options.onExchange)
      this.#log(this.options.onExchange, result, {
        ...(testcase !== undefined && { testcase }),
        id,
        server: server.toString(),
        qname: question.name.toString(),
        qtype: question.type,
        qclass: question.class,
        transport: result.transport,
        flags,
        at: Math.round(started),
        ms: Math.round(ms),
        ...('bytes' in result && {
          reply: Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength).toString('base64'),
        }),
      });
    this.options.signal.throwIfAborted();
    const mac = result.requestMac && { requestMac: result.requestMac };
    if (result.outcome === 'response')
      return { message: result.message, from: result.from, ms, size: result.bytes.length, bytes: result.bytes, ...mac };
    return { ms, failure: failureOf(result) };
  }
}

function failureOf(result: QueryResult): NonNullable<SendOutcome['failure']> {
  if (result.outcome === 'timeout') return 'timeout';
  if (result.outcome === 'malformed') return 'malformed';
  if (result.outcome !== 'network-error') return 'failed';
  const code = (result.error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection-refused';
  if (code === 'ECONNRESET') return 'reset';
  return result.error.message.startsWith('connection closed') ? 'eof' : 'failed';
}
