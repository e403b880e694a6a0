// The platform's OAuth signatures hash an app's secret and the authorization code, so the server
// must be able to reproduce both. Rather than store them, we derive them from the server's key and
// a random nonce kept in the row: a copy of the database alone reveals neither.
import { createHmac, randomBytes } from 'node:crypto';

export type DerivedPurpose = 'app-secret' | 'oauth-code' | 'csrf' | 'webhook-signing' | 'bulk-download';

export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

export function deriveSecret(key: Uint8Array, purpose: DerivedPurpose, ...parts: string[]): string {
  return createHmac('sha256', key)
    .update([purpose, ...parts].join('\0'), 'utf8')
    .digest('base64url');
}

/** The raw 32 bytes of a derived secret (a Standard Webhooks signing key is bytes, shown as base64). */
export function deriveBytes(key: Uint8Array, purpose: DerivedPurpose, ...parts: string[]): Buffer {
  return createHmac('sha256', key)
    .update([purpose, ...parts].join('\0'), 'utf8')
    .digest();
}
