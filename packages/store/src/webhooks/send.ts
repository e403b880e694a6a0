// One signed POST of an event to one URL: connects only to addresses the target policy allows (checked
// on the resolved address, so a name cannot be pointed at the operator's network after it was accepted),
// never follows redirects, and gives up after a time limit.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { signDelivery, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.ts';
import { isLoopback, type TargetPolicy } from './target-policy.ts';

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
  timeoutMs: number;
  /** Largest reply body read; a longer one is a failure. */
  maxReplyBytes: number;
}

// Connections are kept open between deliveries to the same receiver: a TLS handshake costs more than the POST.
// A connection is only made through the guarded lookup, so a kept one was checked when it was opened.
const agents = new WeakMap<Sender, { https: https.Agent; http: http.Agent }>();
function agentsOf(sender: Sender): { https: https.Agent; http: http.Agent } {
  let found = agents.get(sender);
  if (found === undefined) {
    const ca = sender.ca === undefined ? {} : { ca: [...rootCertificates, sender.ca] };
    found = { https: new https.Agent({ keepAlive: true, maxSockets: 4, ...ca }), http: new http.Agent({ keepAlive: true, maxSockets: 4 }) };
    agents.set(sender, found);
  }
  return found;
}

/** Closes the connections kept for a sender's deliveries. */
export function closeSender(sender: Sender): void {
  const found = agents.get(sender);
  found?.https.destroy();
  found?.http.destroy();
  agents.delete(sender);
}

export type Outcome = { ok: true; status: number; reply: string } | { ok: false; status: number | undefined; error: string };

/** Connects only to addresses the policy allows; for plain http, only to loopback ones (whatever the name says). */
function guardedLookup(policy: TargetPolicy, loopbackOnly: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) return callback(error, '', 4);
      const refused = addresses
        .map((a) => (loopbackOnly && !isLoopback(a.address) ? `${hostname} resolves to ${a.address}, not loopback, and the URL is plain http` : policy.addressProblem(a.address)))
        .find((problem) => problem !== undefined);
      if (refused !== undefined || addresses.length === 0) return callback(new Error(refused ?? `${hostname} has no address`), '', 4);
      if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}

export function sendSigned(sender: Sender, out: Outgoing): Promise<Outcome> {
  const problem = sender.policy.urlProblem(out.url);
  if (problem !== undefined) return Promise.resolve({ ok: false, status: undefined, error: `url ${problem}` });
  const url = new URL(out.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const refused = sender.policy.addressProblem(host);
    if (refused !== undefined) return Promise.resolve({ ok: false, status: undefined, error: refused });
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        lookup: guardedLookup(sender.policy, url.protocol !== 'https:'),
        agent: url.protocol === 'https:' ? agentsOf(sender).https : agentsOf(sender).http,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(out.body),
          'user-agent': 'store-webhooks/1',
          'x-ac-event': out.event,
          'x-ac-delivery': out.deliveryId,
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: signDelivery(out.secret, timestamp, out.body),
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > out.maxReplyBytes) {
            request.destroy();
            finish({ ok: false, status, error: `the reply was longer than ${out.maxReplyBytes} bytes` });
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', (error) => finish({ ok: false, status, error: error.message }));
        response.on('end', () => {
          if (status >= 200 && status < 300) finish({ ok: true, status, reply: Buffer.concat(chunks).toString('utf8') });
          else finish({ ok: false, status, error: `HTTP ${status}` });
        });
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, status: undefined, error: `no answer within ${out.timeoutMs / 1000} s` });
      request.destroy();
    }, out.timeoutMs);
    request.on('error', (error) => finish({ ok: false, status: undefined, error: error.message }));
    request.end(out.body);
  });
}
