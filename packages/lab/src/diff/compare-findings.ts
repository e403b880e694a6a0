// Compares two engines' findings as sets of (testcase, tag, level): arguments and repeats (one per
// name server) do not count, since the same finding is what matters for fidelity.
import type { Finding } from './checkers.ts';

export interface Comparison {
  agree: string[];
  /** The reference reports it, we do not. */
  missing: string[];
  /** We report it, the reference does not. */
  extra: string[];
  /** agree / (agree + missing + extra), as a percentage; 100 when both are empty. */
  agreement: number;
}

export const findingKey = (f: Finding): string => `${f.testcase.toUpperCase()} ${f.tag} ${f.level}`;

export function keysOf(findings: Finding[]): string[] {
  return [...new Set(findings.map(findingKey))].sort();
}

export function compareFindings(reference: Finding[], ours: Finding[]): Comparison {
  const ref = new Set(keysOf(reference));
  const mine = new Set(keysOf(ours));
  const agree = [...ref].filter((k) => mine.has(k));
  const missing = [...ref].filter((k) => !mine.has(k));
  const extra = [...mine].filter((k) => !ref.has(k));
  const total = agree.length + missing.length + extra.length;
  return { agree, missing, extra, agreement: total === 0 ? 100 : (100 * agree.length) / total };
}
