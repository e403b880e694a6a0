// RFC 5155 §5: iterated SHA-1 over the canonical owner name and the salt.
import { createHash } from 'node:crypto';
import type { Name } from '../name.ts';

export function nsec3Hash(name: Name, salt: Uint8Array, iterations: number): Uint8Array {
  let digest: Uint8Array = createHash('sha1').update(name.toLowerCase().wire).update(salt).digest();
  for (let i = 0; i < iterations; i++) digest = createHash('sha1').update(digest).update(salt).digest();
  return digest;
}
