// Bearer secrets (tokens, refresh tokens, session ids): random, shown once, stored only as SHA-256.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A secret as handed to its owner. 32 random bytes, base64url: 43 characters. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps. SHA-256 suffices because the secret itself carries 256 random bits. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
