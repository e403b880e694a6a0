// Splits master-file text into entries (RFC 1035 §5.1): parentheses join lines, ';' starts a
// comment, quotes group text. Escapes are kept as written; tokens are decoded by their users.
import { ZoneFileError } from './errors.ts';

export interface Token {
  text: string;
  quoted: boolean;
}

export interface Entry {
  /** Line where the entry starts. */
  line: number;
  /** The entry began with blank space, so it reuses the previous owner. */
  indented: boolean;
  tokens: Token[];
}

export function* entries(text: string): Generator<Entry> {
  let line = 1;
  let depth = 0;
  let parenLine = 0;
  let current: Entry | undefined;
  let i = 0;
  const n = text.length;
  const flush = function* (): Generator<Entry> {
    if (current && current.tokens.length > 0) yield current;
    current = undefined;
  };
  while (i < n) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
      if (depth === 0) yield* flush();
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      if (!current) current = { line, indented: true, tokens: [] };
      i++;
      continue;
    }
    current ??= { line, indented: false, tokens: [] };
    if (c === ';') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '(') {
      if (depth === 0) parenLine = line;
      depth++;
      i++;
      continue;
    }
    if (c === ')') {
      if (depth === 0) throw new ZoneFileError(line, 'unbalanced ")"');
      depth--;
      i++;
      continue;
    }
    if (c === '"') {
      const startLine = line;
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw new ZoneFileError(startLine, 'unterminated quoted string');
        const q = text[i];
        if (q === '"') break;
        if (q === '\\' && i + 1 < n) {
          value += q + text[i + 1];
          if (text[i + 1] === '\n') line++;
          i += 2;
          continue;
        }
        if (q === '\n') line++;
        value += q;
        i++;
      }
      i++;
      current.tokens.push({ text: value, quoted: true });
      continue;
    }
    let value = '';
    while (i < n) {
      const t = text[i];
      if (t === '\\' && i + 1 < n) {
        value += t + text[i + 1];
        i += 2;
        continue;
      }
      if (t === ' ' || t === '\t' || t === '\r' || t === '\n' || t === ';' || t === '(' || t === ')' || t === '"') break;
      value += t;
      i++;
    }
    current.tokens.push({ text: value, quoted: false });
  }
  if (depth > 0) throw new ZoneFileError(parenLine, 'unbalanced "(": no closing ")" before the end');
  yield* flush();
}

/** Decodes `\X` and `\DDD` escapes into bytes; other characters become UTF-8. */
export function tokenBytes(token: Token, line: number): Uint8Array {
  const out: number[] = [];
  const s = token.text;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) {
      const digits = s.slice(i + 1, i + 4);
      if (/^\d{3}$/.test(digits)) {
        if (Number(digits) > 255) throw new ZoneFileError(line, `bad escape \\${digits}`);
        out.push(Number(digits));
        i += 3;
      } else if (i + 1 < s.length) {
        out.push(...Buffer.from(s[i + 1], 'utf8'));
        i += 1;
      } else {
        throw new ZoneFileError(line, 'dangling backslash');
      }
    } else if (c < 0x80) {
      out.push(c);
    } else {
      const cp = s.codePointAt(i)!;
      out.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
      if (cp > 0xffff) i++;
    }
  }
  return Uint8Array.from(out);
}
