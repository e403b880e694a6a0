// The Idempotency-Key header as the API documents it and the plugin reads it: one declaration for both.

export const KEY_LIFETIME_MS = 24 * 3600 * 1000;

export const idempotencyHeader = {
  name: 'Idempotency-Key',
  /** 1 to 255 visible ASCII characters (a UUID fits). */
  pattern: '^[\\x21-\\x7e]{1,255}$',
  description:
    'Makes a retry safe: the same key with the same method, path and body within 24 hours answers the first answer again (with `Idempotent-Replayed: true`) and writes nothing; the same key with another request is 422. ' +
    'While the first request with a key still runs, a retry waits for its answer (up to 10 s, then 409 with `Retry-After`). A 5xx answer is not kept, so a retry after one runs again.',
} as const;

const keyPattern = new RegExp(idempotencyHeader.pattern);

export function isIdempotencyKey(text: string): boolean {
  return keyPattern.test(text);
}
