// Presentation-format values (RFC 1035 §5, RFC 4034 §§2.2, 3.2, 4.2, 5.3, RFC 5155 §3.3).
import { DnssecAlgorithm, typeFromString } from '../constants.ts';
import { base32hexDecode } from '../base32hex.ts';
import { Name, NameError } from '../name.ts';
import { ZoneFileError } from './errors.ts';
import { tokenBytes, type Token } from './tokenizer.ts';

/** Reads the tokens of one record's rdata in order, with errors on the record's line. */
export class Fields {
  readonly tokens: Token[];
  readonly line: number;
  readonly origin: Name | undefined;
  at = 0;

  constructor(tokens: Token[], line: number, origin: Name | undefined) {
    this.tokens = tokens;
    this.line = line;
    this.origin = origin;
  }

  error(message: string): ZoneFileError {
    return new ZoneFileError(this.line, message);
  }

  get done(): boolean {
    return this.at >= this.tokens.length;
  }

  next(what: string): Token {
    const t = this.tokens[this.at++];
    if (!t) throw this.error(`missing ${what}`);
    return t;
  }

  int(what: string, max: number): number {
    const t = this.next(what).text;
    if (!/^\d+$/.test(t) || Number(t) > max) throw this.error(`${what} "${t}" is not a number from 0 to ${max}`);
    return Number(t);
  }

  u8(what: string): number {
    return this.int(what, 0xff);
  }

  u16(what: string): number {
    return this.int(what, 0xffff);
  }

  u32(what: string): number {
    return this.int(what, 0xffffffff);
  }

  /** A TTL-like duration: seconds, or units such as 1h30m (BIND style). */
  duration(what: string): number {
    const t = this.next(what).text;
    const v = parseDuration(t);
    if (v === undefined) throw this.error(`${what} "${t}" is not a duration`);
    return v;
  }

  name(what: string): Name {
    const t = this.next(what).text;
    return parseName(t, this.origin, this.line);
  }

  characterString(what: string): Uint8Array {
    const bytes = tokenBytes(this.next(what), this.line);
    if (bytes.length > 255) throw this.error(`${what} is longer than 255 bytes`);
    return bytes;
  }

  algorithm(): number {
    const t = this.next('algorithm').text.toUpperCase();
    if (/^\d+$/.test(t) && Number(t) <= 255) return Number(t);
    const known = algorithmMnemonics.get(t);
    if (known === undefined) throw this.error(`unknown algorithm "${t}"`);
    return known;
  }

  type(what: string): number {
    const t = this.next(what).text;
    const type = typeFromString(t);
    if (type === undefined) throw this.error(`unknown type "${t}"`);
    return type;
  }

  /** All remaining tokens joined (base64 and hex may be split by spaces). */
  rest(what: string): string {
    if (this.done) throw this.error(`missing ${what}`);
    const s = this.tokens
      .slice(this.at)
      .map((t) => t.text)
      .join('');
    this.at = this.tokens.length;
    return s;
  }

  hexRest(what: string): Uint8Array {
    return this.hex(this.rest(what), what);
  }

  hex(text: string, what: string): Uint8Array {
    if (!/^([0-9a-fA-F]{2})*$/.test(text)) throw this.error(`${what} is not hexadecimal`);
    return new Uint8Array(Buffer.from(text, 'hex'));
  }

  base64Rest(what: string): Uint8Array {
    const s = this.rest(what);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) throw this.error(`${what} is not base64`);
    return new Uint8Array(Buffer.from(s, 'base64'));
  }

  base32hex(what: string): Uint8Array {
    const t = this.next(what).text;
    const v = base32hexDecode(t);
    if (!v) throw this.error(`${what} "${t}" is not base32hex`);
    return v;
  }

  /** RFC 4034 §3.2: YYYYMMDDHHmmSS in UTC, or seconds since the epoch. */
  time(what: string): number {
    const t = this.next(what).text;
    const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(t);
    if (m) return (Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) / 1000) >>> 0;
    if (/^\d+$/.test(t) && Number(t) <= 0xffffffff) return Number(t);
    throw this.error(`${what} "${t}" is not a time`);
  }

  typeList(): number[] {
    const types: number[] = [];
    while (!this.done) types.push(this.type('type in the type list'));
    return types;
  }

  end(): void {
    if (!this.done) throw this.error(`unexpected "${this.tokens[this.at].text}" after the rdata`);
  }
}

const algorithmMnemonics = new Map<string, number>([
  ...Object.entries(DnssecAlgorithm).map(([k, v]) => [k.replaceAll('_', ''), v] as const),
  ['NSEC3DSA', 6],
  ['NSEC3RSASHA1', 7],
  ['RSASHA1-NSEC3-SHA1', 7],
  ['DSA-NSEC3-SHA1', 6],
  ['PRIVATEDNS', 253],
  ['PRIVATEOID', 254],
]);

export function parseDuration(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) <= 0xffffffff ? Number(text) : undefined;
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  const parts = /^(\d+[smhdw])+$/i.test(text) ? text.toLowerCase().match(/\d+[smhdw]/g) : null;
  if (!parts) return undefined;
  const total = parts.reduce((sum, p) => sum + Number(p.slice(0, -1)) * units[p.slice(-1)], 0);
  return total <= 0xffffffff ? total : undefined;
}

export function parseName(text: string, origin: Name | undefined, line: number): Name {
  if (text === '@') {
    if (!origin) throw new ZoneFileError(line, '"@" used with no origin');
    return origin;
  }
  if (!text.endsWith('.') || text.endsWith('\\.')) {
    if (!origin) throw new ZoneFileError(line, `relative name "${text}" with no origin`);
  }
  try {
    return Name.fromString(text, origin);
  } catch (error) {
    if (error instanceof NameError) throw new ZoneFileError(line, `bad name "${text}": ${error.message}`);
    throw error;
  }
}
