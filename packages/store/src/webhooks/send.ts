// One signed POST of an event to one URL: connects only to addresses the target policy allows (checked
// on the resolved address, so a name cannot be pointed at the operator's network after it was accepted),
// never follows redirects, and gives up after a time limit. Connections are undici keep-alive pools.
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { guardedLookup, isLoopback } from '@app/outbound-address';
import { Agent, request } from 'undici';
import { signDelivery, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.ts';
import { STANDARD_HEADERS, standardSignature } from './standard-signature.ts';
import type { TargetPolicy } from './target-policy.ts';

export interface Sender {
  policy: TargetPolicy;
  /** Extra certificate authorities (PEM) receivers' certificates may chain to, beside the usual roots. */
  ca?: string | undefined;
}

export interface Outgoing {
  url: string;
  event: string;
  deliveryId: string;
  body: string;
  secret: string;
  /** The Standard Webhooks message id and the subscription's signing secrets (the previous one too during a rotation). */
  standard?: { id: string; secrets: readonly Uint8Array[] };
  timeoutMs: number;
  /** Largest reply body read; a longer one is a failure. */
  maxReplyBytes: number;
}

/** What the console keeps of an answer: its first bytes. */
export const REPLY_HEAD_BYTES = 200;

// Connections are kept open between deliveries to the same receiver: a TLS handshake costs more than the POST.
// A connection is only made through the guarded lookup, so a kept one was checked when it was opened.
const agents = new WeakMap<Sender, { https: Agent; http: Agent }>();
function agentsOf(sender: Sender): { https: Agent; http: Agent } {
  let found = agents.get(sender);
  if (found === undefined) {
    const ca = sender.ca === undefined ? {} : { ca: [...rootCertificates, sender.ca] };
    const pool = { keepAliveTimeout: 30_000, connections: 8 };
    found = {
      https: new Agent({ ...pool, connect: { ...ca, lookup: connectLookup(sender.policy, false) } as Agent.Options['connect'] }),
      http: new Agent({ ...pool, connect: { lookup: connectLookup(sender.policy, true) } as Agent.Options['connect'] }),
    };
    agents.set(sender, found);
  }
  return found;
}

/** Closes the connections kept for a sender's deliveries. */
export function closeSender(sender: Sender): void {
  const found = agents.get(sender);
  agents.delete(sender);
  void found?.https.destroy().catch(() => undefined);
  void found?.http.destroy().catch(() => undefined);
}

export type Outcome =
  | { ok: true; status: number; reply: string; latencyMs: number }
  | { ok: false; status: number | undefined; error: string; latencyMs: number; head?: string };

/** Connects only to addresses the policy allows; for plain http, only to loopback ones (whatever the name says). */
function connectLookup(policy: TargetPolicy, loopbackOnly: boolean): LookupFunction {
  return guardedLookup(
    policy,
    loopbackOnly
      ? (hostname, address) =>
          isLoopback(address) ? undefined : `${hostname} resolves to ${address}, not loopback, and the URL is plain http`
      : undefined,
  );
}

/** The innermost message of an error undici wraps (a refused lookup reaches the caller as the cause). */
function messageOf(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

export async function sendSigned(sender: Sender, out: Outgoing): Promise<Outcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const problem = sender.policy.urlProblem(out.url);
  if (problem !== undefined) return { ok: false, status: undefined, error: `url ${problem}`, latencyMs: 0 };
  const url = new URL(out.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const refused = sender.policy.addressProblem(host);
    if (refused !== undefined) return { ok: false, status: undefined, error: refused, latencyMs: 0 };
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'store-webhooks/1',
    'x-ac-event': out.event,
    'x-ac-delivery': out.deliveryId,
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: signDelivery(out.secret, timestamp, out.body),
  };
  if (out.standard !== undefined) {
    headers[STANDARD_HEADERS.id] = out.standard.id;
    headers[STANDARD_HEADERS.timestamp] = String(timestamp);
    headers[STANDARD_HEADERS.signature] = standardSignature(out.standard.secrets, out.standard.id, timestamp, out.body);
  }
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, out.timeoutMs);
  const tooSlow = () => ({
    ok: false as const,
    status: undefined,
    error: `no answer within ${out.timeoutMs / 1000} s`,
    latencyMs: latency(),
  });
  let status: number | undefined;
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher: url.protocol === 'https:' ? agentsOf(sender).https : agentsOf(sender).http,
      headers,
      body: out.body,
      signal: abort.signal,
    });
    status = response.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > out.maxReplyBytes) {
        response.body.destroy();
        return {
          ok: false,
          status,
          error: `the reply was longer than ${out.maxReplyBytes} bytes`,
          latencyMs: latency(),
          head: Buffer.concat(chunks).subarray(0, REPLY_HEAD_BYTES).toString('utf8'),
        };
      }
      chunks.push(chunk);
    }
    const reply = Buffer.concat(chunks).toString('utf8');
    if (status >= 200 && status < 300) return { ok: true, status, reply, latencyMs: latency() };
    return { ok: false, status, error: `HTTP ${status}`, latencyMs: latency(), head: reply.slice(0, REPLY_HEAD_BYTES) };
  } catch (error) {
    if (timedOut) return tooSlow();
    return { ok: false, status, error: messageOf(error), latencyMs: latency() };
  } finally {
    clearTimeout(timer);
  }
}
