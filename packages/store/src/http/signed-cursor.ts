// Cursors the store hands out (list positions, event log positions) carry a MAC of their text, so a cursor it never
// made, or one corrupted on the way, is refused instead of being taken for a position that silently skips records.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface CursorSeal {
  /** `<payload, base64url>.<MAC>`, valid only with the same `context`. */
  seal(payload: string, context: string): string;
  /** The payload of a cursor this seal made for `context`; undefined for any other text, however close. */
  open(text: string, context: string): string | undefined;
}

/** A seal keyed by the server's key and `purpose`, so instances sharing the key open each other's cursors. */
export function cursorSeal(authKey: Uint8Array, purpose: string): CursorSeal {
  const key = createHmac('sha256', authKey).update(`cursor\0${purpose}`, 'utf8').digest();
  // 128 bits of the MAC: nobody guesses them, and the cursor stays short.
  const mac = (encoded: string, context: string) =>
    createHmac('sha256', key).update(`${context}\0${encoded}`, 'utf8').digest().subarray(0, 16).toString('base64url');
  return {
    seal(payload, context) {
      const encoded = Buffer.from(payload, 'utf8').toString('base64url');
      return `${encoded}.${mac(encoded, context)}`;
    },
    open(text, context) {
      const dot = text.indexOf('.');
      const encoded = text.slice(0, dot);
      if (dot < 1 || !/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
      // The MAC covers the exact text sent out, so no other spelling of the same bytes passes.
      const given = Buffer.from(text.slice(dot + 1), 'utf8');
      const wanted = Buffer.from(mac(encoded, context), 'utf8');
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return undefined;
      return Buffer.from(encoded, 'base64url').toString('utf8');
    },
  };
}
