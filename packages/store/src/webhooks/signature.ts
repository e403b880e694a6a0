// How a delivery proves where it came from: an HMAC-SHA256 with the subscribing app's App Secret over
// the timestamp, a dot and the exact body. The timestamp travels in its own header, so a receiver can
// refuse old (replayed) deliveries and check the signature with the secret it already holds.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-ac-signature';
export const TIMESTAMP_HEADER = 'x-ac-timestamp';

/** `sha256=<hex>` of `<timestamp>.<body>`, keyed with the App Secret. */
export function signDelivery(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** What a receiver does: recompute, compare in constant time, and refuse a timestamp older than `toleranceSeconds`. */
export function verifyDelivery(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (headers.signature === undefined || !Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signDelivery(secret, timestamp, body));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
