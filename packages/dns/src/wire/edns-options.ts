// Structured views of EDNS options whose bytes have meaning to callers (RFC 7873 cookies).
import type { EdnsOptionData } from './rdata/opt-record.ts';

export interface CookieOption {
  client: Uint8Array;
  /** Absent in a query that has no server cookie yet. */
  server?: Uint8Array;
  /** RFC 7873 §4: 8-byte client cookie, optional 8..32-byte server cookie. */
  wellFormed: boolean;
}

export function parseCookieOption(option: EdnsOptionData): CookieOption {
  const client = option.data.subarray(0, 8);
  const serverLength = option.data.length - 8;
  const server = serverLength > 0 ? option.data.subarray(8) : undefined;
  return { client, server, wellFormed: client.length === 8 && (serverLength === 0 || (serverLength >= 8 && serverLength <= 32)) };
}
