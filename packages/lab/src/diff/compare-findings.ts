// Compares two engines' findings twice: as sets of (testcase, tag, level), where repeats (one per name
// server) do not count; and as multisets of findings with their arguments, where they do. Names
// compare without case and lists without order, because the reference shuffles both.
import type { Finding } from './checkers.ts';

export interface Comparison {
  agree: string[];
  /** The reference reports it, we do not. */
  missing: string[];
  /** We report it, the reference does not. */
  extra: string[];
  /** agree / (agree + missing + extra), as a percentage; 100 when both are empty. */
  agreement: number;
  /** Findings with their arguments, as multisets: matched, and left over on either side. */
  arguments: { agree: string[]; missing: string[]; extra: string[]; agreement: number };
}

export const findingKey = (f: Finding): string => `${f.testcase.toUpperCase()} ${f.tag} ${f.level}`;

export function keysOf(findings: Finding[]): string[] {
  return [...new Set(findings.map(findingKey))].sort();
}

/**
 * Arguments that tell when the engine ran, not what it found (seconds left of a signature, a
 * date): compared by presence only, so a recorded run still compares with today's.
 */
const clockDependent = new Set(['duration', 'time', 'date', 'expiration', 'inception', 'timestamp']);

/** One argument value as compared: lower case, and a list (items joined by ';' or ',', none with a space) in sorted order. */
function normalValue(name: string, value: unknown): string {
  if (clockDependent.has(name)) return '<time>';
  const text = (Array.isArray(value) ? value.map(String).join(';') : String(value)).toLowerCase();
  const separator = text.includes(';') ? ';' : ',';
  const items = text.split(separator);
  return items.length > 1 && items.every((item) => !item.includes(' ')) ? items.sort().join(separator) : text;
}

export function argumentKey(f: Finding): string {
  const args = Object.entries(f.args ?? {}).map(([name, value]) => [name, normalValue(name, value)]);
  return `${findingKey(f)} ${JSON.stringify(Object.fromEntries(args.sort(([a], [b]) => (a < b ? -1 : 1))))}`;
}

const percentOf = (agree: number, total: number): number => (total === 0 ? 100 : (100 * agree) / total);

function compareArguments(reference: Finding[], ours: Finding[]): Comparison['arguments'] {
  const left = new Map<string, number>();
  for (const f of ours) left.set(argumentKey(f), (left.get(argumentKey(f)) ?? 0) + 1);
  const missing: string[] = [];
  const agree: string[] = [];
  for (const f of reference) {
    const key = argumentKey(f);
    const count = left.get(key) ?? 0;
    if (count > 0) {
      left.set(key, count - 1);
      agree.push(key);
    } else missing.push(key);
  }
  const extra = [...left].flatMap(([key, count]) => Array<string>(count).fill(key));
  return {
    agree: agree.sort(),
    missing: missing.sort(),
    extra: extra.sort(),
    agreement: percentOf(agree.length, agree.length + missing.length + extra.length),
  };
}

export function compareFindings(reference: Finding[], ours: Finding[]): Comparison {
  const ref = new Set(keysOf(reference));
  const mine = new Set(keysOf(ours));
  const agree = [...ref].filter((k) => mine.has(k));
  const missing = [...ref].filter((k) => !mine.has(k));
  const extra = [...mine].filter((k) => !ref.has(k));
  return {
    agree,
    missing,
    extra,
    agreement: percentOf(agree.length, agree.length + missing.length + extra.length),
    arguments: compareArguments(reference, ours),
  };
}
