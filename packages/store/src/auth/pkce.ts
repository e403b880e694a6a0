// Proof Key for Code Exchange (RFC 7636).
import { createHash } from 'node:crypto';
import { sameText } from './token-secret.ts';

export type ChallengeMethod = 'S256' | 'plain';

/** Verifiers and challenges are 43 to 128 characters of [A-Z a-z 0-9 - . _ ~] (RFC 7636 4.1, 4.2). */
const PKCE_TEXT = /^[A-Za-z0-9\-._~]{43,128}$/;

export function isPkceText(text: unknown): text is string {
  return typeof text === 'string' && PKCE_TEXT.test(text);
}

export function parseChallengeMethod(text: unknown): ChallengeMethod | undefined {
  if (text === undefined || text === null || text === '') return 'plain'; // RFC 7636 4.3 default
  return text === 'S256' || text === 'plain' ? text : undefined;
}

export function challengeOf(verifier: string, method: ChallengeMethod): string {
  return method === 'plain' ? verifier : createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function verifierMatches(verifier: unknown, challenge: string, method: ChallengeMethod): boolean {
  return isPkceText(verifier) && sameText(challengeOf(verifier, method), challenge);
}
