// How dnscheck shows findings: a table for people, or JSON (one element per finding) for programs.
import { formatFinding } from '../catalogue/catalogue.ts';
import type { Finding } from '../finding.ts';
import { levelRank, worstLevel, type Level } from '../level.ts';

export function visible(findings: readonly Finding[], minimum: Level): Finding[] {
  return findings.filter((f) => levelRank(f.level) >= levelRank(minimum));
}

export function toJson(findings: readonly Finding[], locale: string): string {
  return JSON.stringify(findings.map((f) => ({ ...f, message: formatFinding(f, locale) })), null, 2);
}

export function toTable(findings: readonly Finding[], locale: string): string {
  const rows = findings.map((f) => [f.timestamp.toFixed(2), f.level, f.module, f.testcase, formatFinding(f, locale)]);
  const header = ['Seconds', 'Level', 'Module', 'Testcase', 'Message'];
  const widths = header.slice(0, 4).map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i < 4 ? c.padEnd(widths[i]) : c)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '='.repeat(w)).concat('=======')), ...rows.map(line)].join('\n');
}

/** 0 up to NOTICE, then 3 WARNING, 4 ERROR, 5 CRITICAL (1 and 2 mean failure and bad usage). */
export function exitCodeFor(findings: readonly Finding[]): number {
  const worst = worstLevel(findings.map((f) => f.level));
  switch (worst) {
    case 'CRITICAL':
      return 5;
    case 'ERROR':
      return 4;
    case 'WARNING':
      return 3;
    default:
      return 0;
  }
}
