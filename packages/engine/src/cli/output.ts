// How dnscheck shows findings: a table for people, JSON (an array, or one object per line as findings
// come) for programs; text in the chosen locale, or with --raw the tag and its arguments.
import { formatFinding, uiText } from '../catalogue/catalogue.ts';
import type { Finding } from '../finding.ts';
import type { ComplianceEntry } from '../run/compliance-table.ts';
import type { ParentDs } from '../run/parent-ds-table.ts';
import type { TransportEntry } from '../run/transports-table.ts';
import type { ZoneIntegritySummary } from '../run/zone-integrity-summary.ts';
import { levelRank, levels, worstLevel, type Level } from '../level.ts';
import type { OutputOptions } from './arguments.ts';

export function visible(findings: readonly Finding[], minimum: Level): Finding[] {
  return findings.filter((f) => levelRank(f.level) >= levelRank(minimum));
}

/** The tag and its arguments, as --raw shows them. */
function rawText(finding: Finding): string {
  const args = Object.entries(finding.args).map(([k, v]) => `${k}=${String(v)}`);
  return args.length ? `${finding.tag} ${args.join('; ')}` : finding.tag;
}

function messageOf(finding: Finding, output: OutputOptions): string {
  return output.raw ? rawText(finding) : formatFinding(finding, output.locale);
}

/** One finding as JSON: what the engine found, and its text unless --raw. */
function jsonObject(finding: Finding, output: OutputOptions): Finding & { message?: string } {
  return output.raw ? finding : { ...finding, message: formatFinding(finding, output.locale) };
}

/**
 * What the run's modules beyond the reference make of all their findings (the `extended` profile), under
 * the keys docs/results.schema.json gives them; a key is left out where its module did not run.
 */
export interface BeyondReference {
  compliance?: readonly ComplianceEntry[];
  parent_ds?: ParentDs;
  zone_integrity?: ZoneIntegritySummary;
  transports?: readonly TransportEntry[];
}

const present = (beyond: BeyondReference): BeyondReference =>
  Object.fromEntries(Object.entries(beyond).filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0)));

/** --json: the findings as an array; with results beyond the reference, an object with them beside the findings. */
export function toJson(findings: readonly Finding[], output: OutputOptions, beyond: BeyondReference = {}): string {
  const list = findings.map((f) => jsonObject(f, output));
  const extra = present(beyond);
  return JSON.stringify(Object.keys(extra).length === 0 ? list : { findings: list, ...extra }, null, 2);
}

/** --json-run: the whole run as one object (docs/results.schema.json, `run`). */
export function toJsonRun(
  run: { domain: string; engineVersion: string; elapsed: number },
  findings: readonly Finding[],
  output: OutputOptions,
  beyond: BeyondReference = {},
): string {
  return JSON.stringify(
    {
      engine_version: run.engineVersion,
      domain: run.domain,
      elapsed: Math.round(run.elapsed * 1000) / 1000,
      findings: findings.map((f) => jsonObject(f, output)),
      ...present(beyond),
    },
    null,
    2,
  );
}

export function toJsonLine(finding: Finding, output: OutputOptions): string {
  return JSON.stringify(jsonObject(finding, output));
}

interface Column {
  header: string;
  cell: (finding: Finding) => string;
}

export function toTable(findings: readonly Finding[], output: OutputOptions): string {
  const header = (key: string): string => uiText(`column.${key}`, output.locale);
  const columns: Column[] = [
    ...(output.elapsed ? [{ header: header('seconds'), cell: (f: Finding) => f.timestamp.toFixed(2) }] : []),
    { header: header('level'), cell: (f) => f.level },
    ...(output.showModule ? [{ header: header('module'), cell: (f: Finding) => f.module }] : []),
    ...(output.showTestcase ? [{ header: header('testcase'), cell: (f: Finding) => f.testcase }] : []),
    { header: header('message'), cell: (f) => messageOf(f, output) },
  ];
  const rows = findings.map((f) => columns.map((c) => c.cell(f)));
  const last = columns.length - 1;
  // The message column is not padded; the others are as wide as their widest cell.
  const widths = columns.map((c, i) => (i === last ? c.header.length : Math.max(c.header.length, ...rows.map((r) => r[i].length))));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < last ? c.padEnd(widths[i]) : c))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), line(widths.map((w) => '='.repeat(w))), ...rows.map(line)].join('\n');
}

/** --count: how many findings each level has (every level the run could show, zeros included). */
export function countSummary(findings: readonly Finding[], output: OutputOptions): string {
  const shown = levels.filter((level) => levelRank(level) >= levelRank(output.level)).reverse();
  const counts = new Map<Level, number>(shown.map((level) => [level, 0]));
  for (const f of findings) if (counts.has(f.level)) counts.set(f.level, counts.get(f.level)! + 1);
  const width = Math.max(...shown.map((level) => level.length));
  return [uiText('count.title', output.locale), ...shown.map((level) => `  ${level.padEnd(width)}  ${counts.get(level)}`)].join('\n');
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
