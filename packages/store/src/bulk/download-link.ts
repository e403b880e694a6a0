// A finished job's file is fetched at a signed link that expires: no token needed, so a sync tool can hand it to a
// plain downloader, and nobody can make one without the server's key (HMAC-SHA256 with a key derived from it).
import { createHmac } from 'node:crypto';
import { deriveBytes } from '../auth/derived-secret.ts';
import { sameText } from '../auth/token-secret.ts';
import { ApiError } from '../model/api-error.ts';

/** How long a link works once given out (never past the file's own end). */
export const LINK_LIFETIME_MS = 60 * 60 * 1000;

export interface DownloadLinks {
  /** The query string of a link to job `id`'s file, valid until `expiresMs`. */
  sign(id: number, expiresMs: number): string;
  /** Refuses a missing, wrong or expired signature with a clear 403. */
  check(id: number, query: Record<string, unknown>): void;
}

export function downloadLinks(authKey: Uint8Array, now: () => number): DownloadLinks {
  const key = deriveBytes(authKey, 'bulk-download');
  const mac = (id: number, expires: string) => createHmac('sha256', key).update(`${id}.${expires}`).digest();
  return {
    sign(id, expiresMs) {
      const expires = String(Math.floor(expiresMs / 1000));
      return `expires=${expires}&signature=${mac(id, expires).toString('base64url')}`;
    },
    check(id, query) {
      const { expires, signature } = query;
      if (typeof expires !== 'string' || typeof signature !== 'string' || !/^[0-9]{1,12}$/.test(expires)) {
        throw new ApiError(403, 'This link needs its expires and signature parameters; ask GET /bulk_operations/{id} for one');
      }
      // The exact text signed out: decoding first would let other spellings of the same bytes pass (padding, standard base64, trailing junk).
      if (!sameText(signature, mac(id, expires).toString('base64url')))
        throw new ApiError(403, 'The signature of this link is not valid; ask GET /bulk_operations/{id} for a fresh link');
      if (Number(expires) * 1000 <= now())
        throw new ApiError(
          403,
          `This link expired at ${new Date(Number(expires) * 1000).toISOString()}; ask GET /bulk_operations/{id} for a fresh one`,
        );
    },
  };
}
