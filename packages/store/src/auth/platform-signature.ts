// Signatures of the platform's own OAuth flow (store-api-facts.md, "Authentication").
import { createHash } from 'node:crypto';
import { sameText } from './token-secret.ts';

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Signs the access-token request: sha256(secret + code + client_id + scope + lowercase(redirect_uri)). */
export function accessTokenSignature(input: {
  secret: string;
  code: string;
  clientId: string;
  scope: string;
  redirectUri: string;
}): string {
  return sha256Hex(input.secret + input.code + input.clientId + input.scope + input.redirectUri.toLowerCase());
}

/** Signs the refresh request: sha256(secret + refresh_token + client_id). */
export function refreshSignature(input: { secret: string; refreshToken: string; clientId: string }): string {
  return sha256Hex(input.secret + input.refreshToken + input.clientId);
}

/** Compares a client's signature with the expected one; hex case does not matter. */
export function signatureMatches(expected: string, given: unknown): boolean {
  return typeof given === 'string' && sameText(expected, given.trim().toLowerCase());
}
