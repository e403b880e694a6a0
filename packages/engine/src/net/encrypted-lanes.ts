// Questions over DNS over TLS and over HTTPS to the run's name servers: each (name, address,
// transport, question) asked once per run, a few at a time, each within the profile's timeout; a
// transport that timed out at an address (a silent port 853) is not waited on again there.
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import pLimit from 'p-limit';
import { encryptedQuery, type EncryptedTransport, type Name, type Message, type TlsSession } from '@app/dns';

/** What one encrypted question came to. */
export interface EncryptedOutcome {
  transport: EncryptedTransport;
  ms: number;
  /** Set once a TLS handshake completed (whatever came after). */
  session?: TlsSession;
  message?: Message;
  /** No reply: what happened instead. */
  failure?: 'timeout' | 'connection-refused' | 'reset' | 'eof' | 'http-status' | 'malformed' | 'failed';
  /** The error's text, for messages (an HTTP status, a TLS alert). */
  detail?: string;
}

export interface EncryptedLaneOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** PEM CA certificates trusted beside the system's (dnscheck --tls-ca). */
  tlsCa?: string;
}

const inFlight = 16;

function failureOf(error: Error): Pick<EncryptedOutcome, 'failure' | 'detail'> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return { failure: 'connection-refused', detail: code };
  if (code === 'ECONNRESET') return { failure: 'reset', detail: code };
  if (error.message.startsWith('HTTP')) return { failure: 'http-status', detail: error.message };
  if (error.message.startsWith('connection closed')) return { failure: 'eof', detail: error.message };
  return { failure: 'failed', detail: code ?? error.message };
}

export class EncryptedLanes {
  readonly #options: EncryptedLaneOptions;
  readonly #limit = pLimit(inFlight);
  readonly #answers = new Map<string, Promise<EncryptedOutcome>>();
  /** 'address:transport' that timed out once: later questions there time out at once. */
  readonly #silent = new Set<string>();
  readonly #context: SecureContext | undefined;

  constructor(options: EncryptedLaneOptions) {
    this.#options = options;
    this.#context = options.tlsCa === undefined ? undefined : createSecureContext({ ca: [...rootCertificates, options.tlsCa] });
  }

  ask(serverName: Name, address: string, qname: Name, qtype: number, transport: EncryptedTransport): Promise<EncryptedOutcome> {
    const key = [serverName.key(), address, transport, qname.key(), qtype].join('|');
    let pending = this.#answers.get(key);
    if (!pending) {
      pending = this.#limit(() => this.#send(serverName, address, qname, qtype, transport));
      this.#answers.set(key, pending);
    }
    return pending;
  }

  async #send(serverName: Name, address: string, qname: Name, qtype: number, transport: EncryptedTransport): Promise<EncryptedOutcome> {
    this.#options.signal.throwIfAborted();
    const lane = `${address}:${transport === 'dot' ? 'dot' : 'doh'}`;
    if (this.#silent.has(lane)) return { transport, ms: 0, failure: 'timeout' };
    const name = serverName.toString().replace(/\.$/, '');
    const result = await encryptedQuery(
      { address },
      { name: qname, type: qtype },
      {
        transport,
        timeoutMs: this.#options.timeoutMs,
        signal: this.#options.signal,
        // Certificates name servers, not addresses: a name server's name is what a resolver checks (RFC 9539 §4.3).
        ...(name !== '' && { serverName: name }),
        ...(this.#context && { secureContext: this.#context }),
        edns: { udpSize: 1232 },
      },
    );
    this.#options.signal.throwIfAborted();
    const common = { transport, ms: result.rttMs, ...(result.session && { session: result.session }) };
    if (result.outcome === 'response') return { ...common, message: result.message };
    if (result.outcome === 'timeout') {
      this.#silent.add(lane);
      return { ...common, failure: 'timeout' };
    }
    if (result.outcome === 'malformed') return { ...common, failure: 'malformed', detail: result.error.message };
    return { ...common, ...failureOf(result.error) };
  }
}
