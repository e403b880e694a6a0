// Alerts to an HTTPS webhook: a JSON body signed with HMAC-SHA256 over "<timestamp>.<body>", sent
// again with a doubling delay while the receiver is away or answers 5xx/429. Only to addresses the
// targets policy allows, judged on the address connected to (see alert-targets.ts).
import { AddressRefusedError, guardedLookup, hostProblem, type OutboundPolicy } from '@app/outbound-address';
import { createHmac } from 'node:crypto';
import https from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import { rootCertificates } from 'node:tls';

export const SIGNATURE_HEADER = 'x-watch-signature';
export const TIMESTAMP_HEADER = 'x-watch-timestamp';

export interface WebhookOptions {
  /** Which addresses the alert may connect to. */
  targets: OutboundPolicy;
  /** Extra trusted CA certificates (PEM), besides the system's. */
  ca?: string;
  attempts?: number;
  firstDelayMs?: number;
  timeoutMs?: number;
}

/** `sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>.<body>"); the receiver recomputes and compares it. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export type Delivery = { delivered: true; attempts: number; status: number } | { delivered: false; attempts: number; reason: string };

/** Posts `payload` to `url` until it is taken (2xx), refused (4xx other than 429), or the attempts run out. */
export async function deliverWebhook(url: string, secret: string, payload: unknown, options: WebhookOptions): Promise<Delivery> {
  // Judged again at each delivery: the watch may predate the operator's list as it is now.
  const refused = hostProblem(options.targets, new URL(url));
  if (refused !== undefined) return { delivered: false, attempts: 0, reason: refused };
  const body = JSON.stringify(payload);
  const attempts = options.attempts ?? 5;
  let wait = options.firstDelayMs ?? 1000;
  let reason = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    // Signed again each time: the timestamp says when this attempt was made.
    const timestamp = String(Math.floor(Date.now() / 1000));
    try {
      const status = await post(
        url,
        body,
        { 'content-type': 'application/json', [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signature(secret, timestamp, body) },
        options,
      );
      if (status >= 200 && status < 300) return { delivered: true, attempts: attempt, status };
      reason = `HTTP ${status}`;
      if (status < 500 && status !== 429) return { delivered: false, attempts: attempt, reason };
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
      if (error instanceof AddressRefusedError) return { delivered: false, attempts: attempt, reason };
    }
    if (attempt < attempts) {
      await delay(wait);
      wait *= 2;
    }
  }
  return { delivered: false, attempts, reason };
}

function post(url: string, body: string, headers: Record<string, string>, options: WebhookOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: options.timeoutMs ?? 10_000,
        ...(options.ca !== undefined && { ca: [...rootCertificates, options.ca] }),
        lookup: guardedLookup(options.targets),
        // A connection of its own: a kept-alive one in the shared agent may not have been opened through the guard.
        agent: false,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer in time')));
    request.on('error', reject);
    request.end(body);
  });
}
