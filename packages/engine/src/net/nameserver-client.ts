// One name server (a name at an address), as the tests see it: queries go through the run's answers
// for that address, are counted, and a transport found silent at the address is not used again (as the reference does:
// a plain SOA query that gets no answer marks it).
import { ipFamily, Name, RRClass, RRType, type EdnsInput, type Message, type Question, type TransferResult, type TsigKey } from '@app/dns';
import { currentTestCase } from './query-attribution.ts';
import type { ResolverDefaults } from '../profile/profile.ts';
import type { ServerOrder } from './server-order.ts';
import { displayName } from './response.ts';
import type { EncryptedLanes, EncryptedOutcome } from './encrypted-lanes.ts';
import type { EncryptedTransport } from '@app/dns';

/**
 * What a Nameserver asks of the run's network: network.ts's Network gives it (and makes the Nameservers),
 * declared here so that the two files do not import each other.
 */
export interface ServerNetwork {
  readonly options: { readonly resolver: ResolverDefaults; readonly probeName?: Name; readonly shared?: unknown };
  readonly answers: Map<string, Promise<Message | undefined>>;
  readonly silent: Set<string>;
  readonly answering: Set<string>;
  readonly probes: Map<string, PromiseWithResolvers<void>>;
  readonly sources: WeakMap<Message, string>;
  readonly order: ServerOrder;
  /** A lane's own SOA query in flight (see ServerOrder), by the key of its question. */
  readonly deciding: Map<string, Promise<{ sent: boolean; message?: Message }>>;
  markAnswering(lane: string): void;
  familyEnabled(family: 4 | 6): boolean;
  /** Questions over DoT and DoH (encrypted-lanes.ts). */
  readonly encrypted: EncryptedLanes;
  send(
    server: Nameserver,
    question: Question,
    flags: QueryFlags,
    skip: () => boolean,
    settle?: (outcome: { message?: Message }) => void,
  ): Promise<SendOutcome | 'skipped'>;
  /** Another run's reply to the question, when it may be shared and the shared cache has one (logged as this run's exchange). */
  sharedReply(server: Nameserver, question: Question, flags: QueryFlags, key: string): Promise<Message | undefined>;
  /** Offers a reply got over the network to other runs (when the question may be shared). */
  shareReply(question: Question, key: string, message: Message, bytes: Uint8Array): void;
  transfer(
    server: Nameserver,
    zone: Name,
    enough: (message: Message) => boolean,
    skip: () => boolean,
  ): Promise<(TransferResult & { ms: number }) | 'skipped'>;
}

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
  /** Retry over TCP when a UDP reply is truncated; off exposes the truncated reply. Default: the profile's. */
  fallback?: boolean;
  /** Header bits and opcode beyond a plain query's (protocol compliance tests). */
  header?: ProbeHeader;
}

export interface ProbeHeader {
  opcode?: number;
  aa?: boolean;
  tc?: boolean;
  ra?: boolean;
  z?: boolean;
  ad?: boolean;
  /** The request carries no question (as an unknown opcode's does). */
  noQuestion?: boolean;
  /** The request is signed with this key (TSIG). */
  tsig?: TsigKey;
  /** How long to wait for the reply, and resends (probes wait less than the profile's timeout). */
  timeoutMs?: number;
  retries?: number;
  resendMs?: number;
}

/** The least a probe waits for its reply. */
const probeWaitMs = 250;

/** What one query came to: the reply (with its size on the wire), or why none. */
export interface SendOutcome {
  message?: Message;
  from?: string;
  ms: number;
  /** Bytes of the reply as it came. */
  size?: number;
  /** The reply as it came (for a TSIG check, and for answers shared with other runs). */
  bytes?: Uint8Array;
  /** A signed request's MAC (header.tsig). */
  requestMac?: Uint8Array;
  /** No usable reply: silence, a refused or reset TCP connection, other network errors, or an undecodable reply. */
  failure?: 'timeout' | 'connection-refused' | 'reset' | 'eof' | 'failed' | 'malformed';
}

/** How a zone transfer began: its outcome, and the rcode and first record of its first message. */
export interface TransferStart {
  outcome: TransferResult['outcome'];
  rcode?: number;
  firstRecord?: Message['answer'][number];
}

export interface NameserverStatistics {
  queries: number;
  cacheHits: number;
  responses: number;
  timeouts: number;
  blocked: number;
  totalMs: number;
  /** Milliseconds of the queries that got a reply: their mean is how long the server takes to answer. */
  answeredMs: number;
}

export class Nameserver {
  readonly name: Name;
  readonly address: string;
  readonly family: 4 | 6;
  readonly statistics: NameserverStatistics = {
    queries: 0,
    cacheHits: 0,
    responses: 0,
    timeouts: 0,
    blocked: 0,
    totalMs: 0,
    answeredMs: 0,
  };
  readonly #network: ServerNetwork;
  readonly #transfers = new Map<string, Promise<TransferStart | undefined>>();

  constructor(network: ServerNetwork, name: Name, address: string) {
    this.#network = network;
    this.name = name.toLowerCase();
    this.address = address;
    this.family = ipFamily(address) === 6 ? 6 : 4;
  }

  /** 'ns1.example.com/192.0.2.1', the form findings use. */
  toString(): string {
    return `${this.nameText}/${this.address}`;
  }

  // Asked for on every query and in every sort of servers; the name never changes.
  #nameText: string | undefined;

  get nameText(): string {
    this.#nameText ??= displayName(this.name);
    return this.#nameText;
  }

  /**
   * The response, or undefined when none came (timeout, silent server, or its IP family is off).
   * `share`: the resolver's and the parent walk's questions, which other runs may answer (shared-answers.ts).
   */
  query(qname: Name | string, qtype: number, given: QueryFlags = {}, share = false): Promise<Message | undefined> {
    const name = typeof qname === 'string' ? Name.fromString(qname) : qname;
    const defaults = this.#network.options.resolver;
    const flags: QueryFlags = { ...given, tcp: given.tcp ?? defaults.usevc, dnssec: given.dnssec ?? defaults.dnssec };
    const key = this.#key(name, qtype, flags);
    const cached = this.#network.answers.get(key);
    if (cached) {
      this.statistics.cacheHits++;
      return cached;
    }
    // Waits before it joins the answers, so an earlier test case asking the same meanwhile sends it itself.
    if (this.#network.familyEnabled(this.family)) {
      const turn = this.#network.order.wait(this.#lane(flags), currentTestCase(), () => this.#decidingQuery(flags.tcp ?? false));
      if (turn) return turn.then(() => this.query(name, qtype, given, share));
    }
    const deciding = this.#network.deciding.get(key);
    if (deciding) return this.#join(deciding, key, this.#lane(flags), name, qtype, given, share);
    // Without a shared cache nothing changes, not even a turn of the event loop.
    const pending = this.#send(name, qtype, flags, share && this.#network.options.shared !== undefined ? key : undefined);
    this.#network.answers.set(key, pending);
    return pending;
  }

  // The name's case counts, as in the reference's cache: Nameserver08 and 09 ask with mixed case.
  #key(name: Name, qtype: number, flags: QueryFlags): string {
    return [
      this.address,
      name.toString(),
      qtype,
      flags.qclass ?? RRClass.IN,
      flags.dnssec ? 1 : 0,
      flags.tcp ? 1 : 0,
      flags.rd ? 1 : 0,
      flags.cd ? 1 : 0,
      flags.fallback ?? '',
      JSON.stringify(flags.edns ?? null),
    ].join('|');
  }

  #lane(flags: QueryFlags): string {
    return `${this.address}:${flags.tcp ? 'tcp' : 'udp'}`;
  }

  /**
   * The same question asked while the lane's own SOA query is in flight, free to go: it takes that
   * query's outcome as its own, silence included (a plain SOA query unanswered marks the lane silent).
   */
  #join(
    deciding: Promise<{ sent: boolean; message?: Message }>,
    key: string,
    lane: string,
    name: Name,
    qtype: number,
    given: QueryFlags,
    share: boolean,
  ): Promise<Message | undefined> {
    // Now a plain SOA query is in flight there for real: the questions after it wait, as in #send.
    const probing = this.#network.answering.has(lane) || this.#network.probes.has(lane) ? undefined : Promise.withResolvers<void>();
    if (probing) this.#network.probes.set(lane, probing);
    const release = (): void => {
      if (!probing) return;
      if (this.#network.probes.get(lane) === probing) this.#network.probes.delete(lane);
      probing.resolve();
    };
    const joined = deciding.then(({ sent, message }) => {
      if (!sent) {
        release();
        if (this.#network.answers.get(key) === joined) this.#network.answers.delete(key);
        return this.query(name, qtype, given, share);
      }
      if (!message) {
        this.#network.silent.add(lane);
        this.#network.order.decide(lane);
      }
      release();
      return message;
    });
    this.#network.answers.set(key, joined);
    return joined;
  }

  /**
   * The lane's own plain SOA query for the zone (see ServerOrder): an answer decides the lane and is kept
   * as the answer to that question; silence decides nothing, and marks nothing (the reference's order
   * will), unless the same question was asked meanwhile (see #join).
   */
  #decidingQuery(tcp: boolean): void {
    const flags: QueryFlags = { tcp, dnssec: false };
    const name = this.#network.options.probeName ?? Name.root;
    const lane = this.#lane(flags);
    const settle = (outcome: { message?: Message }): void => {
      if (outcome.message) this.#network.markAnswering(lane);
    };
    const key = this.#key(name, RRType.SOA, flags);
    // The same question already asked for real decides the lane when it ends.
    if (this.#network.answers.has(key)) return;
    const sent = this.#network.send(
      this,
      { name, type: RRType.SOA, class: RRClass.IN },
      flags,
      () => this.#network.order.isDecided(lane),
      settle,
    );
    const outcome = sent.then(
      (outcome): { sent: boolean; message?: Message } => {
        this.#network.deciding.delete(key);
        if (outcome === 'skipped') return { sent: false };
        this.statistics.queries++;
        this.statistics.totalMs += outcome.ms;
        if (!outcome.message) {
          this.statistics.timeouts++;
          return { sent: true };
        }
        this.statistics.responses++;
        this.statistics.answeredMs += outcome.ms;
        if (outcome.from) this.#network.sources.set(outcome.message, outcome.from);
        if (!this.#network.answers.has(key)) this.#network.answers.set(key, Promise.resolve(outcome.message));
        // Only now: a query waiting for the lane, the same question perhaps, finds the answer kept.
        this.#network.order.decide(lane);
        return { sent: true, message: outcome.message };
      },
      // Aborted with the run, which says so itself.
      () => {
        this.#network.deciding.delete(key);
        return { sent: false };
      },
    );
    this.#network.deciding.set(key, outcome);
  }

  /**
   * One query as given, sent now, past the run's answers (never kept, never shared) and its order of
   * lanes: a protocol compliance test wants this exact question's reply, or why none came. Undefined
   * when the profile turns the server's IP family off.
   */
  async probe(qname: Name, qtype: number, flags: QueryFlags): Promise<SendOutcome | undefined> {
    if (!this.#network.familyEnabled(this.family)) return undefined;
    // A probe the server drops is the result `timeout`, not a server gone quiet: it waits a few times
    // the server's own answers (at least probeWaitMs), not the profile's timeout, so that a few dropped
    // probes cost the run no more than its other questions do. A server not heard from yet is first
    // sent a plain SOA probe, with the profile's timeout, to learn that time.
    if (this.statistics.responses === 0) {
      this.#firstProbe ??= this.#sendProbe(qname, RRType.SOA, {}, this.#network.options.resolver.timeout * 1000);
      await this.#firstProbe;
    }
    const { responses, answeredMs } = this.statistics;
    const profileMs = this.#network.options.resolver.timeout * 1000;
    return this.#sendProbe(
      qname,
      qtype,
      flags,
      Math.min(profileMs, Math.max(probeWaitMs, responses > 0 ? 6 * (answeredMs / responses) : profileMs)),
    );
  }

  #firstProbe: Promise<unknown> | undefined;

  async #sendProbe(qname: Name, qtype: number, flags: QueryFlags, waitMs: number): Promise<SendOutcome | undefined> {
    // Sent twice, half the wait apart: the last send waits the other half, so silence costs waitMs.
    const header: ProbeHeader = { timeoutMs: waitMs / 2, retries: 1, resendMs: waitMs / 2, ...flags.header };
    // `header` sends it in the address's line of probes (network.ts).
    const sent = await this.#network.send(
      this,
      { name: qname, type: qtype, class: flags.qclass ?? RRClass.IN },
      { ...flags, header },
      () => false,
    );
    if (sent === 'skipped') return undefined;
    this.statistics.queries++;
    this.statistics.totalMs += sent.ms;
    if (sent.message) {
      this.statistics.responses++;
      this.statistics.answeredMs += sent.ms;
    } else this.statistics.timeouts++;
    return sent;
  }

  /**
   * One question over DNS over TLS or HTTPS (asked once per run, under this server's name, which its
   * certificate must carry); undefined when the profile turns the server's IP family off.
   */
  encrypted(qname: Name, qtype: number, transport: EncryptedTransport): Promise<EncryptedOutcome | undefined> {
    if (!this.#network.familyEnabled(this.family)) return Promise.resolve(undefined);
    return this.#network.encrypted.ask(this.name, this.address, qname, qtype, transport);
  }

  /** The address a response of this server came from; another than `address` for a misconfigured server. */
  answeredFrom(message: Message): string | undefined {
    return this.#network.sources.get(message);
  }

  /**
   * The first message of a zone transfer of `zone` (read up to its first record, then the
   * connection is closed), once per run; undefined when not asked (IP family off).
   */
  transferStart(zone: Name): Promise<TransferStart | undefined> {
    const key = zone.key();
    let pending = this.#transfers.get(key);
    if (!pending) {
      pending = this.#startTransfer(zone);
      this.#transfers.set(key, pending);
    }
    return pending;
  }

  /** A whole zone transfer of `zone`, every message kept (ZONEMD needs them all); undefined when not asked (IP family off). */
  async transferAll(zone: Name): Promise<TransferResult | undefined> {
    if (!this.#network.familyEnabled(this.family)) {
      this.statistics.blocked++;
      return undefined;
    }
    const result = await this.#network.transfer(
      this,
      zone,
      () => false,
      () => false,
    );
    if (result === 'skipped') return undefined;
    this.statistics.queries++;
    this.statistics.totalMs += result.ms;
    if (result.outcome === 'timeout') this.statistics.timeouts++;
    else this.statistics.responses++;
    return result;
  }

  async #startTransfer(zone: Name): Promise<TransferStart | undefined> {
    if (!this.#network.familyEnabled(this.family)) {
      this.statistics.blocked++;
      return undefined;
    }
    // The reference tries a transfer whatever it knows of the server's silence, and learns nothing from it.
    const result = await this.#network.transfer(
      this,
      zone,
      (message) => message.answer.length > 0,
      () => false,
    );
    if (result === 'skipped') return undefined;
    this.statistics.queries++;
    this.statistics.totalMs += result.ms;
    if (result.outcome === 'timeout') {
      this.statistics.timeouts++;
    } else {
      this.statistics.responses++;
    }
    const first = result.messages[0];
    return { outcome: result.outcome, ...(first && { rcode: first.rcode, firstRecord: first.answer[0] }) };
  }

  async #send(name: Name, qtype: number, flags: QueryFlags, sharedKey?: string): Promise<Message | undefined> {
    if (!this.#network.familyEnabled(this.family)) {
      this.statistics.blocked++;
      return undefined;
    }
    const transport = flags.tcp ? 'tcp' : 'udp';
    // Checked again when the query's turn comes: a query queued behind one that timed out is not sent.
    const silent = (): boolean => this.#network.silent.has(`${this.address}:${transport}`);
    // Until the address has answered on this transport, a plain SOA query in flight there holds back
    // the questions asked after it: unanswered, it marks the transport silent and they are not sent (a
    // server that never answers is waited for once). Any other question decides nothing, so the ones
    // after it go side by side with it: on the Internet a wait for a first answer is a round trip.
    const lane = `${this.address}:${transport}`;
    const plainSoa = qtype === RRType.SOA && !flags.edns && !flags.dnssec;
    const answered = (): boolean => this.#network.answering.has(lane);
    for (let probe = this.#network.probes.get(lane); probe && !silent() && !answered(); probe = this.#network.probes.get(lane))
      await probe.promise;
    if (silent()) return undefined;
    const question = { name, type: qtype, class: flags.qclass ?? RRClass.IN };
    if (sharedKey !== undefined) {
      // Taken as if this server had just given it: the lane answers, as it did for the run that asked.
      const shared = await this.#network.sharedReply(this, question, flags, sharedKey);
      if (shared) {
        this.#network.markAnswering(lane);
        if (plainSoa) this.#network.order.decide(lane);
        this.statistics.queries++;
        this.statistics.responses++;
        this.#network.sources.set(shared, this.address);
        return shared;
      }
    }
    const probing = answered() || !plainSoa ? undefined : Promise.withResolvers<void>();
    if (probing) this.#network.probes.set(lane, probing);
    try {
      // Read inside the query's slot, before the next queued query's turn comes.
      const settle = (outcome: { message?: Message }): void => {
        if (outcome.message) {
          this.#network.markAnswering(lane);
          if (plainSoa) this.#network.order.decide(lane);
          return;
        }
        // As in the reference (engine 9.0): only an SOA query without EDNS that got nothing marks the
        // transport silent, for every later query; other queries may go unanswered for their own reasons.
        if (plainSoa) {
          this.#network.silent.add(lane);
          this.#network.order.decide(lane);
        }
      };
      const outcome = await this.#network.send(this, question, flags, silent, settle);
      if (outcome === 'skipped') return undefined;
      this.statistics.queries++;
      this.statistics.totalMs += outcome.ms;
      if (!outcome.message) {
        this.statistics.timeouts++;
        return undefined;
      }
      this.statistics.responses++;
      this.statistics.answeredMs += outcome.ms;
      if (outcome.from) this.#network.sources.set(outcome.message, outcome.from);
      if (sharedKey !== undefined && outcome.bytes && outcome.from === this.address)
        this.#network.shareReply(question, sharedKey, outcome.message, outcome.bytes);
      return outcome.message;
    } finally {
      if (probing) {
        if (this.#network.probes.get(lane) === probing) this.#network.probes.delete(lane);
        probing.resolve();
      }
    }
  }
}
